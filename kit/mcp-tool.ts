// What domain tools are written with (subgraphs/<domain>/mcp.ts): argument schemas that describe each field for a
// model and refuse unknown arguments, and the bounded collection of a live stream for the live tools.

import { ADDRESS_PATTERN, MAX_TIME_MS } from '../platform/fields.ts';
import type { LiveStream } from '../subgraphs/live.ts';
import { type JsonSchema, NO_NUL_PATTERN } from './request-schema.ts';

/** A tool's arguments: `properties` each described, `required` those it needs; any other argument is refused. */
export const toolInput = (properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length ? { required } : {}),
  additionalProperties: false,
});

/** A field's schema with the sentence a model reads. */
export const described = (schema: JsonSchema, description: string): JsonSchema => ({ ...schema, description });

/** Text of 1 to 100 characters without NUL (no Postgres text takes it): a name, a cursor. */
export const TEXT: JsonSchema = { type: 'string', minLength: 1, maxLength: 100, pattern: NO_NUL_PATTERN };

export const coinArg = (what = 'the coin') =>
  described(TEXT, `${what}: a perp name ("BTC"), a HIP-3 dex coin ("xyz:XYZ100"), a spot pair ("PURR/USDC" or "@1")`);
export const addressArg = (what = "the user's address") =>
  described({ type: 'string', pattern: ADDRESS_PATTERN }, `${what}: 0x and 40 hex digits`);
export const intArg = (min: number, max: number, description: string): JsonSchema =>
  described({ type: 'integer', minimum: min, maximum: max }, description);
export const timeArg = (description: string): JsonSchema =>
  described({ type: 'integer', minimum: 0, maximum: MAX_TIME_MS }, `${description} (epoch milliseconds)`);
export const enumArg = (values: readonly string[], description: string): JsonSchema =>
  described({ type: 'string', enum: [...values] }, description);
export const boolArg = (description: string): JsonSchema => described({ type: 'boolean' }, description);
/** A fill's side as the exchange writes it. */
export const sideArg = (what = 'only fills of this side') =>
  enumArg(['A', 'B'], `${what}: A sells (ask side), B buys (bid side)`);
/** TEXT with other length bounds (a dex name, a cursor): still no NUL. */
export const textArg = (description: string, bounds: { minLength?: number; maxLength?: number } = {}): JsonSchema =>
  described({ ...TEXT, ...bounds }, description);
/** The one convention of argument names across the catalog: camelCase, as /info's fields are (startTime). */
export const ARGUMENT_NAME = /^[a-z][a-zA-Z0-9]*$/;

/** The longest a live tool collects, whatever it is asked: a tool call holds a request open. */
export const MAX_COLLECT_SECONDS = 60;

export const secondsArg = (what: string) =>
  intArg(1, MAX_COLLECT_SECONDS, `how long to collect ${what}, in seconds (1 to ${MAX_COLLECT_SECONDS})`);

/**
 * Collects a live stream's events for `seconds`, or until `max` items are gathered or the call is aborted (the
 * caller went away, the server stops): what was gathered is the answer, with why it stopped.
 */
export function collect<T, I = T>(
  stream: LiveStream<T>,
  opts: { seconds: number; max: number; signal: AbortSignal; items?: (event: T) => readonly I[] },
): Promise<{ items: I[]; stoppedBy: 'time' | 'max' | 'aborted'; seconds: number }> {
  const started = performance.now();
  const items: I[] = [];
  const itemsOf = opts.items ?? ((e: T) => [e as unknown as I]);
  return new Promise((resolve) => {
    let done = false;
    let stop = () => {};
    const finish = (stoppedBy: 'time' | 'max' | 'aborted') => {
      if (done) return;
      done = true;
      stop();
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      resolve({ items: items.slice(0, opts.max), stoppedBy, seconds });
    };
    const onAbort = () => finish('aborted');
    const timer = setTimeout(() => finish('time'), opts.seconds * 1000);
    opts.signal.addEventListener('abort', onAbort);
    stop = stream.subscribe((event) => {
      items.push(...itemsOf(event));
      if (items.length >= opts.max) finish('max');
    });
    if (opts.signal.aborted) finish('aborted');
  });
}
