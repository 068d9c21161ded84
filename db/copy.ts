// COPY text format and COPY FROM STDIN on a client: the fastest way rows go into a table (ingest's batches, the
// analytics derivation's inserts).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

const ESCAPE = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as a field of COPY text format (null and undefined as \\N, objects as their JSON). */
export function copyValue(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return ESCAPE.test(v) ? v.replace(ESCAPE, (c) => ESCAPES[c] as string) : v;
    case 'number':
      return String(v);
    case 'boolean':
      return v ? 't' : 'f';
    case 'undefined':
      return '\\N';
    default:
      return v === null ? '\\N' : copyValue(JSON.stringify(v));
  }
}

/** Values as one line of COPY text format. */
export function copyRow(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) {
    if (i) line += '\t';
    line += copyValue(values[i]);
  }
  return `${line}\n`;
}

/**
 * COPY of `text` into `target`. pg's own read timeout does not suit a COPY stream (pg-copy-streams throws,
 * uncaught, when the server answers after it fired), so it is turned off for the COPY and replaced by a guard that
 * cuts the connection: the COPY then fails as any statement on a dead connection does.
 */
export async function copyInto(client: pg.ClientBase, target: string, text: Buffer, timeoutMs: number): Promise<void> {
  const CHUNK = 256 * 1024;
  function* chunks() {
    for (let at = 0; at < text.length; at += CHUNK) yield text.subarray(at, at + CHUNK);
  }
  const copy = copyFrom(`COPY ${target} FROM STDIN`);
  // pg reads a query's own `query_timeout` before the connection's; 0 would mean "the connection's".
  (copy as unknown as { query_timeout: number }).query_timeout = 2 ** 31 - 1;
  const guard = setTimeout(() => {
    (client as unknown as { connection: { stream: { destroy(err?: Error): void } } }).connection.stream.destroy(
      new Error('Connection terminated: COPY timed out'),
    );
  }, timeoutMs);
  try {
    await pipeline(Readable.from(chunks()), client.query(copy));
  } finally {
    clearTimeout(guard);
  }
}
