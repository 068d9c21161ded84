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
}

/** `{success, message, data, execution_time_ms, has_more?}`: path endpoints. `started` is performance.now(). */
export function dataEnvelope<T>(data: T, started: number, hasMore?: boolean): DataEnvelope<T> {
  return {
    success: true,
    message: 'ok',
    data,
    execution_time_ms: Math.round(performance.now() - started),
    ...(hasMore === undefined ? {} : { has_more: hasMore }),
  };
}
