// The bad-input fuzz test's values (test/bad-input.fuzz.test.ts): numbers, strings and shapes no field takes,
// reversed and out-of-range windows, hostile /ws frames, whole /info bodies broken below the field level, and URL
// pieces (percent-encoding, broken escapes, bounds beyond bigint).
import fc from 'fast-check';

/** The time the test's good windows end at. */
export const now = Date.now();
export const HOUR = 3_600_000;

export const HUGE_TEXT = 'x'.repeat(10_000);

/** Numbers no field takes: negative, fractional, beyond 2^53, 2^63 and 2^64, the largest doubles. */
const badNumbers = fc.oneof(
  fc.constantFrom(0, -1, -0.5, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 64, 2 ** 70, -(2 ** 63), 1e21),
  fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.double({ noNaN: true })),
);

/** Text with a NUL character: what Postgres cannot take in any text parameter. */
const nulText = fc.constantFrom('\u0000', 'BTC\u0000', '\u0000BTC', 'E\u0000TH', 'PURR/USDC\u0000', '1m\u0000');

/** Strings of the wrong shape: odd unicode, bad addresses, numbers and cursors beyond 64 bits, broken dates. */
const badStrings = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1.5',
    '1e3',
    'NaN',
    'null',
    'true',
    '\ud800',
    '\udfff\ud800',
    '\u202eCTB',
    '🚀',
    'İ',
    'ＢＴＣ',
    'B\u200bTC',
    '0x',
    '0x123',
    `0x${'g'.repeat(40)}`,
    `0x${'0'.repeat(41)}`,
    `0X${'0'.repeat(40)}`,
    `0x${'0'.repeat(32)}`,
    HUGE_TEXT,
    '99999999999999999999999',
    '18446744073709551616',
    '-9223372036854775809',
    '1:2',
    '9999999999999999:99999999999999999999',
    '1700000000000:18446744073709551616',
    '__proto__',
    '2026-13-45T99:99:99',
    '9999-12-31T23:59:59',
    '0000-01-01',
    '+275760-09-13T00:00:00Z',
    '1h',
    '1M',
    'asc ',
  ),
  fc.string({ unit: 'binary', maxLength: 24 }),
);

/** Values of the wrong JSON type. */
const badShapes = fc.oneof(
  fc.constantFrom<unknown>(null, true, false, {}, [], [null], [1, 2], ['BTC'], { a: { b: { c: 1 } } }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Wrong or hostile JSON values for any field. */
export const nasty: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: badNumbers },
  { weight: 2, arbitrary: nulText },
  { weight: 4, arbitrary: badStrings },
  { weight: 2, arbitrary: badShapes },
);

/** A window's bounds swapped, or far outside any data. */
export const badWindow = fc.constantFrom<Record<string, number>>(
  { startTime: now, endTime: now - HOUR },
  { startTime: -1, endTime: 0 },
  { startTime: Number.MAX_SAFE_INTEGER, endTime: Number.MAX_SAFE_INTEGER },
  { startTime: 0, endTime: 2 ** 64 },
  { startTime: 8.64e15 + 1 },
);

/**
 * /ws frames as text (issue 29): nesting past the depth limit (64) in a post's payload or a subscription, and
 * numbers JSON.parse turns into Infinity, -0 or a rounded value, as a post's id, a payload field or a candle time.
 */
const NUMBER_TEXTS = ['1e309', '-1e309', '1e-400', '-0', '123456789012345678901234567890', '9007199254740993'];
export const hostileWsFrame = fc.oneof(
  fc
    .integer({ min: 65, max: 20_000 })
    .map(
      (n) =>
        `{"method":"post","id":1,"request":{"type":"info","payload":{"type":"l2Book","coin":${'['.repeat(n)}${']'.repeat(n)}}}}`,
    ),
  fc
    .integer({ min: 65, max: 20_000 })
    .map((n) => `{"method":"subscribe","subscription":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}`),
  fc
    .record({
      id: fc.constantFrom('1', ...NUMBER_TEXTS),
      value: fc.constantFrom(...NUMBER_TEXTS),
      field: fc.constantFrom('limit', 'startTime', 'endTime', 'nSigFigs', 'oid', 'lookbackDays', 'token'),
      type: fc.constantFrom(
        'candleSnapshot',
        'userFillsByTime',
        'l2Book',
        'historicalOrders',
        'orderStatus',
        'fundingHistory',
      ),
    })
    .map(
      ({ id, value, field, type }) =>
        `{"method":"post","id":${id},"request":{"type":"info","payload":{"type":"${type}","coin":"BTC","user":"0x${'1'.repeat(40)}","${field}":${value},"req":{"coin":"BTC","interval":"1m","startTime":${value}}}}}`,
    ),
  fc
    .constantFrom(...NUMBER_TEXTS)
    .map((v) => `{"method":"subscribe","subscription":{"type":"l2Book","coin":"BTC","nSigFigs":${v},"mantissa":${v}}}`),
);

/** Whole requests broken below the field level: the body's text and content type. */
export const rawInfoCase = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    '[]',
    '"allMids"',
    '{',
    '{"type":"allMids"',
    '{"type":"allMids"}}',
    "{'type':'allMids'}",
    '{"type":"fills","startTime":100000000000000000000000000}',
    '{"type":"historicalOrders","user":"USER","cursor":99999999999999999999999}',
    '{"type":"l2Book","coin":"BTC","nSigFigs":5e400}',
    '{"type":"trades","coin":"BTC\\u0000"}',
    '{"type":"allMids","__proto__":{"type":"x"}}',
    '{"type":"allMids","type":"meta"}',
    `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    `{"type":"allMids","pad":"${'x'.repeat((1 << 20) + 10)}"}`,
    '\u0000',
    '\ufeff{"type":"allMids"}',
  ),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
);
export const contentTypes = fc.constantFrom(
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/octet-stream',
  undefined,
);

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD, as UTF-8 does). */
export function encode(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Text that goes into a URL as it is: broken escapes, or too long for a path parameter. */
export const rawUrlPiece = fc.constantFrom(
  '%',
  '%Z',
  '%ZZ',
  '%E0%A4%A',
  '%C0%80',
  '%FF',
  '%00',
  'BTC%00',
  '%2F..%2F',
  'x'.repeat(300),
  '%F0%9F%9A',
);

/** Time bounds beyond what Postgres's bigint holds (one alone, so that the pair is not refused as reversed first). */
export const queryWindow = fc.constantFrom<Record<string, string>>(
  { end_time: '1'.repeat(25) },
  { start_time: '9'.repeat(19), end_time: '9'.repeat(20) },
  { start_time: String(2 ** 53), end_time: String(2 ** 53 + 2) },
  { endTime: '1'.repeat(25) },
  { start_time: '2026-11-22T10:00:00', end_time: '2026-11-22T09:00:00' },
  { end_time: '+275760-09-13T00:00:00Z' },
);
