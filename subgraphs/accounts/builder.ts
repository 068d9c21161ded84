// The accounts subgraph's Pothos builder: plugins (the directives plugin carries @key and @listSize into the SDL,
// the relay plugin builds the history connections), scalars and the context type.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import { decimalScalar, type ScalarTypes, timestampScalar } from '../scalars.ts';
import type { AccountsService } from './service/index.ts';

export interface AccountsContext {
  accounts: AccountsService;
}

export const builder = new SchemaBuilder<{
  Scalars: ScalarTypes & { JSON: { Input: unknown; Output: unknown } };
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Context: AccountsContext;
}>({
  plugins: [DirectivePlugin, FederationPlugin, DataloaderPlugin, RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
    // Every subgraph that pages with the relay plugin declares the same PageInfo.
    pageInfoTypeOptions: { shareable: true },
  },
});

builder.scalarType('Decimal', decimalScalar);
builder.scalarType('Timestamp', timestampScalar);
builder.scalarType('JSON', {
  description: 'A JSON value, as the exchange prints it (ledger deltas)',
  serialize: (v) => v,
  parseValue: (v) => v,
});
