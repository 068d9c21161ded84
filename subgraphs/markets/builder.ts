// The markets subgraph's Pothos builder: plugins (the directives plugin carries @key and @listSize into the
// SDL), scalars and the context type.
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import { decimalScalar, type ScalarTypes, timestampScalar } from '../scalars.ts';
import type { MarketsService } from './service/index.ts';

export interface MarketsContext {
  markets: MarketsService;
}

export const builder = new SchemaBuilder<{
  Scalars: ScalarTypes;
  DefaultFieldNullability: false;
  Context: MarketsContext;
}>({
  plugins: [DirectivePlugin, FederationPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
});

builder.scalarType('Decimal', decimalScalar);
builder.scalarType('Timestamp', timestampScalar);
