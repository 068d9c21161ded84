// candleSnapshot's two forms over real Postgres: the JSON text compat sends is byte for byte the JSON of the objects
// GraphQL resolves, with live candles overlaid, the window's edges, and the 5 000 cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import type { CandleFrame } from './candles.ts';
import { type CandleQuery, candleSnapshot, candleSnapshotJson, MAX_CANDLES } from './market-data.ts';

const MINUTE = 60_000;
const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
  await db.pool.query(
    `INSERT INTO markets.candles (coin, interval, t, close_time, o, h, l, c, v, n, closed, reconciled)
     SELECT 'kPEPE', '1m', $1::bigint + i * 60000, $1::bigint + i * 60000 + 59999, 0.0041 + i * 0.0000001, 0.0042,
       0.004, 0.00415, i * 1000.5, i, true, true
     FROM generate_series(0, 5099) AS i`,
    [T0],
  );
}, 60_000);
afterAll(async () => {
  await db?.drop();
});

const frame = (t: number, c: string): CandleFrame => ({
  t,
  T: t + MINUTE - 1,
  s: 'kPEPE',
  i: '1m',
  o: '0.0041',
  c,
  h: '0.005',
  l: '0.004',
  v: '12.5',
  n: 3,
  closed: false,
  reconciled: false,
});

describe('candleSnapshot', () => {
  const both = async (q: CandleQuery, live: CandleFrame[] = []) => {
    const objects = await candleSnapshot(db.pool, q, live);
    const text = (await candleSnapshotJson(db.pool, q, live)).toString();
    // The JSON is the exchange's candle: the frames without their closed and reconciled flags.
    expect(text).toBe(JSON.stringify(objects.map(({ closed: _c, reconciled: _r, ...wire }) => wire)));
    return objects;
  };

  it('writes the same JSON as the objects, oldest first, inside the window', async () => {
    const q: CandleQuery = {
      coin: 'kPEPE',
      interval: '1m',
      startTime: T0 + 10 * MINUTE + 5,
      endTime: T0 + 20 * MINUTE,
    };
    const candles = await both(q);
    // startTime inside a bucket includes that bucket; endTime is the last opening time included.
    expect(candles.map((c) => (c.t - T0) / MINUTE)).toEqual([10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(candles[0]).toEqual({
      t: T0 + 10 * MINUTE,
      T: T0 + 11 * MINUTE - 1,
      s: 'kPEPE',
      i: '1m',
      o: '0.0041010',
      c: '0.00415',
      h: '0.0042',
      l: '0.004',
      v: '10005.0',
      n: 10,
      closed: true,
      reconciled: true,
    });
  });

  it('overlays live candles on stored ones and adds the open one', async () => {
    const q: CandleQuery = {
      coin: 'kPEPE',
      interval: '1m',
      startTime: T0 + 5090 * MINUTE,
      endTime: T0 + 6000 * MINUTE,
    };
    const live = [frame(T0 + 5099 * MINUTE, '0.0049'), frame(T0 + 5100 * MINUTE, '0.0050'), frame(T0, '0.1')];
    const candles = await both(q, live);
    expect(candles).toHaveLength(11);
    expect(candles.at(-2)).toMatchObject({ t: T0 + 5099 * MINUTE, c: '0.0049', n: 3 });
    expect(candles.at(-1)).toMatchObject({ t: T0 + 5100 * MINUTE, c: '0.0050' });
  });

  it(`keeps the ${MAX_CANDLES} most recent`, async () => {
    const candles = await both({ coin: 'kPEPE', interval: '1m', startTime: 0, endTime: T0 + 6000 * MINUTE }, [
      frame(T0 + 5100 * MINUTE, '0.0050'),
    ]);
    expect(candles).toHaveLength(MAX_CANDLES);
    expect(candles[0]?.t).toBe(T0 + 101 * MINUTE);
    expect(String(await candleSnapshotJson(db.pool, { coin: 'nope', interval: '1m', startTime: 0, endTime: T0 }))).toBe(
      '[]',
    );
  });
});
