// Composition of the subgraph SDLs into the supergraph, in process (@theguild/federation-composition).
import { printSubgraphSchema } from '@apollo/subgraph';
import { composeServices } from '@theguild/federation-composition';
import { type GraphQLSchema, parse } from 'graphql';

export interface SubgraphDef {
  name: string;
  url: string;
  schema: GraphQLSchema;
}

export function composeSupergraph(subgraphs: readonly SubgraphDef[]): string {
  const result = composeServices(
    // graphql's printSchema drops @key and @link: print the subgraph SDL.
    subgraphs.map((s) => ({ name: s.name, url: s.url, typeDefs: parse(printSubgraphSchema(s.schema)) })),
  );
  if (result.errors?.length || !result.supergraphSdl) {
    throw new Error(`supergraph composition failed:\n${(result.errors ?? []).map((e) => e.message).join('\n')}`);
  }
  return result.supergraphSdl;
}
