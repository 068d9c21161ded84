// The one Pothos builder setup every subgraph shares: its plugins (directives carry @key and @listSize into the
// SDL, federation, dataloader, relay for the history connections), the Decimal, Timestamp and JSON scalars and non-null
// by default. Each domain keeps its own Context type (and may add scalars of its own).
import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import { decimalScalar, jsonScalar, type ScalarTypes, timestampScalar } from './scalars.ts';

/** The SchemaTypes of a subgraph: its context, and any scalars of its own beside Decimal and Timestamp. */
export interface SubgraphTypes<Context extends object, ExtraScalars extends object = object> {
  Scalars: ScalarTypes & ExtraScalars;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Context: Context;
}

export type SubgraphBuilder<
  Context extends object,
  ExtraScalars extends object = object,
> = PothosSchemaTypes.SchemaBuilder<PothosSchemaTypes.ExtendDefaultTypes<SubgraphTypes<Context, ExtraScalars>>>;

/** A subgraph's builder, with the shared plugins and scalars in place. */
export function subgraphBuilder<Context extends object, ExtraScalars extends object = object>(): SubgraphBuilder<
  Context,
  ExtraScalars
> {
  const builder = new SchemaBuilder<SubgraphTypes<object>>({
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
  builder.scalarType('JSON', jsonScalar);
  // Context and extra scalars only narrow the types the domain's fields see; the builder is the same object.
  return builder as unknown as SubgraphBuilder<Context, ExtraScalars>;
}
