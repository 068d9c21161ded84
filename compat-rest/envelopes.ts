// The service's response envelopes (spec §2.1). Unwrapped and proxied answers are sent as they are.

/** `{result, cursor}`: most locally answered `/info` types. */
export function resultEnvelope<T>(result: T): { result: T; cursor: null } {
  return { result, cursor: null };
}

export interface DataEnvelope<T> {
  success: true;
  message: string;
  data: T;
  execution_time_ms: number;
  has_more?: boolean;
  next_cursor?: string | null;
  total_count?: number;
}

export interface ListPage {
  hasMore: boolean;
  nextCursor?: string | null;
  totalCount?: number;
}

/**
 * `{success, message, data, execution_time_ms}`: path endpoints; list routes add `has_more` and, when they page
 * by cursor, `next_cursor` and `total_count`. `started` is performance.now() at the start of the request.
 */
export function dataEnvelope<T>(data: T, started: number, page?: boolean | ListPage): DataEnvelope<T> {
  const p = typeof page === 'boolean' ? { hasMore: page } : page;
  return {
    success: true,
    message: 'ok',
    data,
    execution_time_ms: Math.round(performance.now() - started),
    ...(p === undefined ? {} : { has_more: p.hasMore }),
    ...(p?.nextCursor === undefined ? {} : { next_cursor: p.nextCursor }),
    ...(p?.totalCount === undefined ? {} : { total_count: p.totalCount }),
  };
}
