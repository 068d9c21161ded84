// GraphQL as the tests speak it to the router or a subgraph: a request over HTTP (its status and parsed answer), and a
// graphql-ws client of the same endpoint.
import { type Client, type ClientOptions, createClient } from 'graphql-ws';
import WebSocket from 'ws';

// biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are checked field by field by the tests
export type GraphqlAnswer = { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };

export async function postGraphql(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ status: number; body: GraphqlAnswer }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, body: (await res.json()) as GraphqlAnswer };
}

/** A graphql-ws client of the GraphQL endpoint at `httpUrl` (its ws:// twin), which does not retry a lost connection. */
export function graphqlWsClient(httpUrl: string, options: Partial<ClientOptions> = {}): Client {
  return createClient({ url: httpUrl.replace(/^http/, 'ws'), webSocketImpl: WebSocket, retryAttempts: 0, ...options });
}

/** Fragments each spreading the next twice (issue 29): `levels` levels expand to 2^levels field selections. */
export function fragmentBomb(levels: number): string {
  let query = '{ ...F0 }';
  for (let i = 0; i < levels - 1; i++) query += ` fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`;
  return `${query} fragment F${levels - 1} on Query { allMids { coin } }`;
}
