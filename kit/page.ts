// A finished page of a list, as a service returns it, and what each door makes of the one page object: a REST bare
// array with its paging headers (envelopes.ts pagingHeaders), an MCP answer's `hasMore`/`nextCursor`, a GraphQL
// Relay connection. No door rebuilds a cursor or re-reads a row.

/**
 * A page: its rows, each row's own cursor (a page starting after it follows that row), whether more rows follow,
 * and the cursor the next page starts after (null: none follow).
 */
export interface Page<T> {
  rows: T[];
  cursors: string[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * The page of `rows`, read with one row more than `limit` (whether another page follows); `cursorOf` is a row's own
 * cursor (its key, or the offset after it).
 */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T, index: number) => string): Page<T> {
  const hasMore = rows.length > limit;
  const kept = hasMore ? rows.slice(0, limit) : rows;
  const cursors = kept.map(cursorOf);
  return { rows: kept, cursors, hasMore, nextCursor: hasMore ? (cursors.at(-1) ?? null) : null };
}

/** The same page with each row made into what a door shows (a record, a GraphQL node). */
export const mapPage = <T, U>(page: Page<T>, of: (row: T) => U): Page<U> => ({ ...page, rows: page.rows.map(of) });

/** The paging of a page as an MCP answer (and the REST headers) state it. */
export const pagingOf = (page: { hasMore: boolean; nextCursor: string | null }) => ({
  hasMore: page.hasMore,
  nextCursor: page.nextCursor,
});

/**
 * A Relay connection of `nodes`: each edge with its row's cursor, the page's end cursor the one it resumes after;
 * `after` is the cursor the page was asked after (whether a page precedes it).
 */
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

/** A page as a Relay connection of `toNode(row)`. */
export function connectionOf<R, N>(
  page: { rows: readonly R[]; cursors: readonly string[]; hasMore: boolean; nextCursor: string | null },
  toNode: (row: R) => N,
  after: string | null | undefined,
) {
  return toConnection(page.rows.map(toNode), (_n, i) => page.cursors[i] as string, { ...page, after });
}
