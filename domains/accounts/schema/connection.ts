// Relay connections over the service's keyset pages: each edge carries the cursor of its own row, and the page's
// end cursor is the one the service returned to resume after it.

export function toConnection<N>(
  nodes: readonly N[],
  cursorOf: (node: N, index: number) => string,
  page: { hasMore: boolean; nextCursor: string | null; after: string | null | undefined },
) {
  const edges = nodes.map((node, i) => ({ node, cursor: cursorOf(node, i) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasMore,
      hasPreviousPage: page.after != null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: page.nextCursor ?? edges.at(-1)?.cursor ?? null,
    },
  };
}

/** A history page of the service (rows with their own cursors) as a connection of `toNode(row)`. */
export function historyConnection<R, N>(
  page: { rows: readonly R[]; cursors: readonly string[]; hasMore: boolean; nextCursor: string | null },
  toNode: (row: R) => N,
  after: string | null | undefined,
) {
  return toConnection(page.rows.map(toNode), (_n, i) => page.cursors[i] as string, { ...page, after });
}
