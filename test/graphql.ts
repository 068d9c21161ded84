// A GraphQL request over HTTP as the tests send it to the router or a subgraph: its status and parsed answer.

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
