// Path endpoints of the markets domain (/market/*, /hip3/*) over simulated history (test/compat-app.ts): the data
// envelope, paging, and a 400 naming the parameter at every limit's edge.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody } from '../../../platform/error-codes.ts';
import { startCompatApp, type TestCompatApp } from '../../../test/compat-app.ts';

let compat: TestCompatApp;
beforeAll(async () => {
  compat = await startCompatApp();
  // Three archive samples a second apart (the sampler's own timer runs every 10 s).
  for (let i = 0; i < 3; i++) {
    await compat.markets.history.sampleOnce();
    await new Promise((r) => setTimeout(r, 5));
  }
}, 120_000);
afterAll(async () => {
  await compat?.close();
});

async function get(path: string) {
  const res = await compat.get(path);
  // Every answer, envelope or error, is JSON by its content type too (the app serializes objects to bytes itself).
  expect(res.type).toMatch(/^application\/json/);
  return { status: res.status, body: res.body };
}

describe('/market/*', () => {
  it('lists the coins with history', async () => {
    const { status, body } = await get('/market/coins');
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, message: 'ok', execution_time_ms: expect.any(Number) });
    expect(body.data).toContain('BTC');
  });

  it('pages a series newest first with has_more', async () => {
    const first = await get('/market/bbo/BTC?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    expect(first.body.has_more).toBe(true);
    const [a, b] = first.body.data;
    // Naive UTC ISO text, as in every path-endpoint record; newest first.
    expect(a.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect(Date.parse(`${a.time}Z`)).toBeGreaterThan(Date.parse(`${b.time}Z`));
    expect(Number(a.ask_px)).toBeGreaterThan(Number(a.bid_px));
    const all = await get('/market/bbo/BTC?limit=1000');
    expect(all.body.has_more).toBe(false);
    // Three samples taken here, and maybe one more by the sampler's own 10 s timer.
    expect(all.body.data.length).toBeGreaterThanOrEqual(3);
  });

  it.each(['bbo', 'spread', 'depth', 'slippage', 'book'])(
    '/market/%s: next_cursor continues with the older samples, each sample once',
    async (series) => {
      const all = (await get(`/market/${series}/ETH?limit=1000`)).body;
      expect(all).toMatchObject({ has_more: false, next_cursor: null });
      const times = [...new Set(all.data.map((r: { time: string }) => r.time))];
      expect(times.length).toBeGreaterThanOrEqual(3);
      const rows: unknown[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 10; page++) {
        const body: { data: { time: string }[]; has_more: boolean; next_cursor: string | null } = (
          await get(`/market/${series}/ETH?limit=1${cursor ? `&cursor=${cursor}` : ''}`)
        ).body;
        rows.push(...body.data);
        expect(new Set(body.data.map((r: { time: string }) => r.time)).size).toBe(1);
        expect(body.has_more).toBe(body.next_cursor !== null);
        cursor = body.next_cursor;
        if (!cursor) break;
        // The cursor is the page's sample time (epoch ms).
        expect(Number(cursor)).toBe(Date.parse(`${body.data[0]?.time}Z`));
      }
      expect(rows).toEqual(all.data);
    },
  );

  it('serves spread, depth, slippage, book and the liquidity report', async () => {
    const spread = await get('/market/spread/ETH');
    expect(Number(spread.body.data[0].spread_bps)).toBeGreaterThan(0);
    const depth = await get('/market/depth/ETH?limit=1');
    expect(Object.keys(depth.body.data[0].bands)).toEqual(['10', '25', '50', '100', '200', '500']);
    const slippage = await get('/market/slippage/ETH?limit=1');
    expect(slippage.body.data.map((r: { notional: string }) => r.notional)).toEqual(['1000', '10000', '100000']);
    const book = await get('/market/book/ETH?limit=1');
    expect(book.body.data[0].levels).toHaveLength(2);
    const report = await get(
      `/market/liquidity-report/ETH?start_time=${new Date(Date.now() - 3_600_000).toISOString()}`,
    );
    expect(report.body.data).toMatchObject({ coin: 'ETH', spread_bps: { avg: expect.any(String) } });
    expect(report.body.data.start_time).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]{12}$/);
    for (const series of [spread, depth, slippage, book]) {
      expect(series.body.data[0].time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
    }
    expect(report.body.data.samples).toBeGreaterThanOrEqual(3);
  });

  it.each([
    ['/market/bbo/BTC?limit=0', 'limit: must be an integer from 1 to 1000, got 0'],
    ['/market/bbo/BTC?limit=1001', 'limit: must be an integer from 1 to 1000, got 1001'],
    ['/market/bbo/BTC?cursor=abc', 'cursor: must be the next_cursor of a page'],
    ['/market/bbo/BTC?start_time=yesterday', 'start_time: must be an ISO 8601 datetime or epoch milliseconds'],
    [
      '/market/bbo/BTC?start_time=2026-11-22T10:00:00&end_time=2026-11-22T09:00:00',
      'start_time: must not be after end_time',
    ],
    ['/hip3/top-movers?limit=0', 'limit: must be an integer from 1 to 100, got 0'],
    ['/hip3/top-movers?limit=101', 'limit: must be an integer from 1 to 100, got 101'],
  ])('answers 400 for %s', async (path, message) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
  });

  it('answers 404 with a JSON error for an unknown path', async () => {
    expect(await get('/market/nope')).toEqual({
      status: 404,
      body: errorBody('not_found', 'no such endpoint: GET /market/nope'),
    });
  });
});

describe('/hip3/*', () => {
  it('lists the HIP-3 coins with their 24 h and cumulative figures', async () => {
    const { body } = await get('/hip3/snapshots');
    const coins = body.data.map((r: { coin: string }) => r.coin);
    expect(coins.length).toBeGreaterThan(0);
    expect(coins.every((c: string) => c.startsWith('xyz:'))).toBe(true);
    expect(body.data[0]).toMatchObject({
      dex_id: 'xyz',
      is_halted: false,
      trades_24h: expect.any(Number),
      last_update: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/),
    });
    const one = await get(`/hip3/snapshots?coin=${encodeURIComponent(coins[0])}`);
    expect(one.body.data).toHaveLength(1);
  });

  it('ranks the top movers, at most `limit` of them', async () => {
    const edge = await get('/hip3/top-movers?limit=1');
    expect(edge.body.data).toHaveLength(1);
    expect(edge.body.data[0].last_update).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]{12}$/);
    const all = await get('/hip3/top-movers?limit=100');
    expect(all.status).toBe(200);
  });
});
