// /hip4/* over the hand-written history of test/hip4-files.ts (not the simulator): exact rows of every route,
// provider statistics without settlement fills, analytics bucket edges and the coin split, a question settling,
// the legacy question's venue `oracle`, offset and cursor paging (X-Has-More, X-Next-Cursor) without a lost or
// repeated row, and every cap and 400.
import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naiveIso } from '../../../platform/naive-iso.ts';
import { startCompatApp, type TestCompatApp } from '../../../test/compat-app.ts';
import {
  A1,
  A2,
  A3,
  A4,
  AT,
  BINARY_DESCRIPTION,
  DEPLOYER_ODDSX,
  DEPLOYER_PREDICT,
  HOUR,
  hip4History,
  SUB_DEPLOYER,
  T0,
} from '../../../test/hip4-files.ts';
import { hip4Schema } from '../schema/index.ts';

let app: TestCompatApp;
beforeAll(async () => {
  app = await startCompatApp({ data: 'empty', node: 'down' });
  // Through ingest onto the services' bus, as in the running service: the live parts (provider totals) follow it.
  await hip4History().load(app.db, app.bus);
}, 60_000);
afterAll(async () => {
  await app?.close();
});

async function ok(path: string) {
  const res = await app.get(path);
  expect(res.status, res.text).toBe(200);
  expect(res.type).toBe('application/json; charset=utf-8');
  return res.body;
}

describe('/hip4/questions', () => {
  it('answers a bare array; the legacy question reports venue oracle, and its settlement', async () => {
    const body = await ok('/hip4/questions');
    expect(body).toEqual([
      {
        question_id: 1,
        name: 'FOMC decision',
        description: 'class:event|topic:fomc',
        fallback_outcome: 12,
        named_outcomes: [10, 11],
        settled_named_outcomes: [10],
        updated_at: naiveIso(AT.settlement).replace('T', ' '),
        venue: 'oracle',
        deployer: '',
      },
      {
        question_id: 2,
        name: 'Rain in Tokyo',
        description: 'class:event|topic:weather',
        fallback_outcome: 22,
        named_outcomes: [20, 21],
        settled_named_outcomes: [],
        updated_at: '2026-11-22 07:00:00.000',
        venue: 'predict',
        deployer: DEPLOYER_PREDICT,
      },
    ]);
    expect(body[0].updated_at).toBe('2026-11-22 10:00:00.000');
  });

  it('filters by question_id and venue', async () => {
    expect((await ok('/hip4/questions?question_id=2')).map((q: { question_id: number }) => q.question_id)).toEqual([2]);
    expect((await ok('/hip4/questions?question_id=10000')).length).toBe(0);
    expect((await ok('/hip4/questions?venue=oracle')).map((q: { question_id: number }) => q.question_id)).toEqual([1]);
  });
});

describe('/hip4/markets and /hip4/outcomes', () => {
  it('answers market rows with the venue, deployer and fee scale (0 and empty for oracle markets)', async () => {
    const rows = await ok('/hip4/markets');
    expect(rows.map((r: { outcome_id: number }) => r.outcome_id)).toEqual([10, 11, 12, 20, 21, 22, 30]);
    expect(rows[0]).toEqual({
      outcome_id: 10,
      coin: '#100',
      name: 'Cut',
      description: 'class:event|option:10',
      class: 'event',
      underlying: null,
      expiry: null,
      target_price: null,
      period: null,
      side_specs: '[{"name":"Yes"},{"name":"No"}]',
      question_id: 1,
      quote_token: 'USDH',
      block_time: '2026-11-22T07:00:00.000',
      settled: 1,
      settle_fraction: '1.0',
      question_name: 'FOMC decision',
      question_description: 'class:event|topic:fomc',
      total_fills: 2,
      total_volume: '40.0',
      unique_users: 2,
      venue: '',
      deployer: '',
      deployer_fee_scale: '0',
    });
    expect(rows[6]).toMatchObject({
      outcome_id: 30,
      coin: '#300',
      description: BINARY_DESCRIPTION,
      class: 'priceBinary',
      underlying: 'BTC',
      expiry: '20261123-0600',
      target_price: '90000',
      period: '1d',
      question_id: null,
      settled: 0,
      settle_fraction: null,
      total_fills: 2,
      total_volume: '5.0',
      venue: 'oddsx',
      deployer: DEPLOYER_ODDSX,
      deployer_fee_scale: '0.5',
    });
    expect(await ok('/hip4/outcomes')).toEqual(rows);
  });

  it('filters by outcome_id, question_id, class and underlying', async () => {
    const ids = async (q: string) => (await ok(`/hip4/outcomes?${q}`)).map((r: { outcome_id: number }) => r.outcome_id);
    expect(await ids('outcome_id=20')).toEqual([20]);
    expect(await ids('question_id=2')).toEqual([20, 21, 22]);
    expect(await ids('class=priceBinary')).toEqual([30]);
    expect(await ids('underlying=BTC')).toEqual([30]);
    expect(await ids('class=price')).toEqual([]);
    expect(await ids('limit=2&offset=5')).toEqual([22, 30]);
  });
});

describe('/hip4/fills', () => {
  it('answers fill rows newest first with market name, description, venue and deployer', async () => {
    const rows = await ok('/hip4/fills');
    expect(rows).toHaveLength(10);
    // The settlement fills first (newest), then match 4's taker and maker.
    expect(rows.slice(0, 2).map((r: { typeTrade: string }) => r.typeTrade)).toEqual(['settlement', 'settlement']);
    expect(rows.find((r: { tid: number; user: string }) => r.tid === 4 && r.user === A1)).toEqual({
      user: A1,
      coin: '#300',
      outcome_id: 30,
      px: '0.25',
      sz: '20.0',
      side: 'B',
      time_ms: AT.match4,
      dir: 'Buy',
      closedPnl: '0.0',
      hash: expect.stringMatching(/^0x0+68$/),
      oid: 8,
      tid: 4,
      fee: '0.01',
      feeToken: 'USDH',
      fee_usdc: '0.01',
      typeTrade: 'taker',
      market_name: 'BTC above 90000',
      market_description: BINARY_DESCRIPTION,
      venue: 'oddsx',
      deployer: DEPLOYER_ODDSX,
    });
  });

  it('filters by user, coin (# optional), outcome_id and an inclusive window', async () => {
    const tids = async (q: string) => (await ok(`/hip4/fills?${q}`)).map((r: { tid: number }) => r.tid);
    expect(await tids(`user=${A4.toUpperCase().replace('0X', '0x')}`)).toEqual([4]);
    expect(await tids('coin=%23201')).toEqual([2, 2]);
    expect(await tids('coin=201')).toEqual([2, 2]);
    expect(await tids('outcome_id=20')).toEqual([3, 3, 2, 2]);
    expect(await tids(`start=${AT.match2}&end=${AT.match3}`)).toEqual([3, 3, 2, 2]);
    expect(await tids(`start=${naiveIso(AT.match2)}&end=${naiveIso(AT.match2)}Z`)).toEqual([2, 2]);
  });

  it('pages with limit and offset with no row lost or repeated', async () => {
    const all = await ok('/hip4/fills?limit=1000');
    const key = (r: { tid: number; user: string; side: string }) => `${r.tid}:${r.user}:${r.side}`;
    const paged = [];
    for (let offset = 0; offset < 12; offset += 3) paged.push(...(await ok(`/hip4/fills?limit=3&offset=${offset}`)));
    expect(paged.map(key)).toEqual(all.map(key));
    expect(new Set(paged.map(key)).size).toBe(10);
  });
});

describe('paging headers of the /hip4 lists', () => {
  /** Every row of `path`, page by page of `limit` following X-Next-Cursor, and the pages' sizes. */
  async function follow(path: string, limit: number) {
    const rows: unknown[] = [];
    const sizes: number[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 50; i++) {
      const sep = path.includes('?') ? '&' : '?';
      const res = await app.get(`${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status, res.text).toBe(200);
      const page = 'data' in res.body ? res.body.data : res.body;
      rows.push(...page);
      sizes.push(page.length);
      const more = res.headers['x-has-more'];
      expect(more === 'true' || more === 'false').toBe(true);
      if (more === 'false') {
        expect(res.headers['x-next-cursor']).toBeUndefined();
        return { rows, sizes };
      }
      cursor = res.headers['x-next-cursor'] as string;
      expect(cursor).toEqual(expect.any(String));
    }
    throw new Error(`${path}: no last page`);
  }

  it.each([
    ['/hip4/fills', 3],
    ['/hip4/questions', 1],
    ['/hip4/markets', 2],
    ['/hip4/outcomes', 2],
    ['/hip4/providers', 2],
    ['/hip4/deployers', 1],
    [`/hip4/analytics?start=${T0}&end=${T0 + 4 * HOUR}&coin=200,201`, 1],
  ])('%s: X-Has-More and X-Next-Cursor walk every row once, in order', async (path, limit) => {
    const whole = await app.get(`${path}${path.includes('?') ? '&' : '?'}limit=1000`);
    const all = 'data' in whole.body ? whole.body.data : whole.body;
    expect(whole.headers['x-has-more']).toBe('false');
    expect(all.length).toBeGreaterThan(limit);
    const { rows, sizes } = await follow(path, limit);
    expect(rows).toEqual(all);
    expect(sizes.slice(0, -1).every((n) => n === limit)).toBe(true);
  });

  it('refuses a cursor it did not give, and a cursor with an offset', async () => {
    for (const path of ['/hip4/fills?cursor=abc', '/hip4/questions?cursor=x1', '/hip4/providers?cursor=-1']) {
      const res = await app.get(path);
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatch(/^cursor: /);
    }
    expect((await app.get('/hip4/questions?cursor=1&offset=1')).body.error).toMatch(/cursor.*offset/);
  });
});

describe('the hip4 subgraph over the same service', () => {
  it('gives the routes money as the same decimal text (GraphQL Decimal)', async () => {
    const res = await graphql({
      schema: hip4Schema,
      source: '{ hip4Providers { venue volumeUsdc fees } outcomes(limit: 1000) { outcomeId totalVolume } }',
      contextValue: { hip4: app.services.hip4 },
    });
    expect(res.errors).toBeUndefined();
    const data = res.data as {
      hip4Providers: { venue: string; volumeUsdc: string; fees: string }[];
      outcomes: { outcomeId: number; totalVolume: string }[];
    };
    const providers = (await ok('/hip4/providers')) as { venue: string; volume_usdc: string; fees: string }[];
    expect(data.hip4Providers).toEqual(
      providers.map((p) => ({ venue: p.venue, volumeUsdc: p.volume_usdc, fees: p.fees })),
    );
    const markets = (await ok('/hip4/markets')) as { outcome_id: number; total_volume: string }[];
    expect(data.outcomes).toEqual(markets.map((m) => ({ outcomeId: m.outcome_id, totalVolume: m.total_volume })));
  });
});

describe('/hip4/providers', () => {
  it('answers per venue by volume, settlement fills excluded, oracle markets under venue oracle', async () => {
    expect(await ok('/hip4/providers')).toEqual([
      {
        venue: 'oracle',
        markets_traded: 1,
        fills: 2,
        volume_usdc: '40.0',
        unique_users: 2,
        fees: '0.04',
        last_trade: naiveIso(AT.match1),
      },
      {
        venue: 'predict',
        markets_traded: 1,
        fills: 4,
        volume_usdc: '35.0',
        unique_users: 3,
        fees: '0.035',
        last_trade: naiveIso(AT.match3),
      },
      {
        venue: 'oddsx',
        markets_traded: 1,
        fills: 2,
        volume_usdc: '5.0',
        unique_users: 2,
        fees: '0.009',
        last_trade: naiveIso(AT.match4),
      },
    ]);
  });

  it('answers the same from the live totals (no window) as from the SQL over the whole window', async () => {
    expect(await ok(`/hip4/providers?start=0&end=${AT.settlement}`)).toEqual(await ok('/hip4/providers'));
    expect(await ok(`/hip4/providers?venue=oddsx&start=0&end=${AT.settlement}`)).toEqual(
      await ok('/hip4/providers?venue=oddsx'),
    );
  });

  it('reads start and end inclusively; a venue appears after its first fill; venue and paging filter', async () => {
    const venues = async (q: string) => (await ok(`/hip4/providers?${q}`)).map((r: { venue: string }) => r.venue);
    expect(await venues(`start=${AT.match2}&end=${AT.match3}`)).toEqual(['predict']);
    expect((await ok(`/hip4/providers?start=${AT.match2}&end=${AT.match2}`))[0]).toMatchObject({ fills: 2 });
    // Before match 4, oddsx has had no fill: it is not listed yet.
    expect(await venues(`end=${AT.match4 - 1}`)).toEqual(['oracle', 'predict']);
    // After the last match only settlement fills happened: nothing counts.
    expect(await venues(`start=${AT.match4 + 1}`)).toEqual([]);
    expect(await venues('venue=oracle')).toEqual(['oracle']);
    expect(await venues('limit=1&offset=1')).toEqual(['predict']);
  });
});

describe('/hip4/deployers', () => {
  it('answers the registry rows, sub_deployers as a JSON string', async () => {
    expect(await ok('/hip4/deployers')).toEqual([
      {
        deployer: DEPLOYER_ODDSX,
        venue: 'oddsx',
        fee_scale: '0.5',
        sub_deployers: '[]',
        updated_at: '2026-11-22T07:00:00.000',
      },
      {
        deployer: DEPLOYER_PREDICT,
        venue: 'predict',
        fee_scale: '1.0',
        sub_deployers: JSON.stringify([['registerQuestion', [SUB_DEPLOYER]]]),
        updated_at: '2026-11-22T07:00:00.000',
      },
    ]);
    expect((await ok('/hip4/deployers?venue=predict')).map((d: { venue: string }) => d.venue)).toEqual(['predict']);
  });
});

describe('/hip4/analytics', () => {
  const window = `start=${T0}&end=${T0 + 4 * HOUR}`;

  it('answers the analytics envelope; 1h buckets aligned, a fill on the edge in the later bucket', async () => {
    expect(await ok(`/hip4/analytics?interval=1h&${window}`)).toEqual({
      status: 'live',
      count: 3,
      data: [
        {
          bucket: '2026-11-22T07:00:00',
          fills: 2,
          volume: 40,
          buy_volume: 40,
          sell_volume: 0,
          fees_usdc: 0.04,
          unique_users: 2,
        },
        {
          bucket: '2026-11-22T08:00:00',
          fills: 4,
          volume: 35,
          buy_volume: 5,
          sell_volume: 30,
          fees_usdc: 0.035,
          unique_users: 3,
        },
        {
          bucket: '2026-11-22T09:00:00',
          fills: 2,
          volume: 5,
          buy_volume: 5,
          sell_volume: 0,
          fees_usdc: 0.009,
          unique_users: 2,
        },
      ],
    });
  });

  it('aligns 4h and 1d buckets to the interval (UTC)', async () => {
    const buckets = async (q: string) =>
      (await ok(`/hip4/analytics?${q}&${window}`)).data.map((b: { bucket: string; fills: number }) => [
        b.bucket,
        b.fills,
      ]);
    expect(await buckets('interval=4h')).toEqual([
      ['2026-11-22T04:00:00', 2],
      ['2026-11-22T08:00:00', 6],
    ]);
    expect(await buckets('interval=1d')).toEqual([['2026-11-22T00:00:00', 8]]);
  });

  it('splits rows by coin for several coins or an outcome; one coin is not split', async () => {
    const split = await ok(`/hip4/analytics?coin=200,%23201&${window}`);
    expect(split.data).toEqual([
      {
        bucket: '2026-11-22T08:00:00',
        coin: '#200',
        fills: 2,
        volume: 5,
        buy_volume: 5,
        sell_volume: 0,
        fees_usdc: 0.005,
        unique_users: 2,
      },
      {
        bucket: '2026-11-22T08:00:00',
        coin: '#201',
        fills: 2,
        volume: 30,
        buy_volume: 0,
        sell_volume: 30,
        fees_usdc: 0.03,
        unique_users: 2,
      },
    ]);
    expect((await ok(`/hip4/analytics?outcome_id=20&${window}`)).data).toEqual(split.data);
    const one = await ok(`/hip4/analytics?coin=%23100&${window}`);
    expect(one.data).toEqual([expect.not.objectContaining({ coin: expect.anything() })]);
    expect(one.data[0]).toMatchObject({ bucket: '2026-11-22T07:00:00', fills: 2, volume: 40 });
  });

  it('pages buckets with limit and offset', async () => {
    const page = await ok(`/hip4/analytics?limit=1&offset=1&${window}`);
    expect(page).toMatchObject({ count: 1, data: [{ bucket: '2026-11-22T08:00:00' }] });
  });
});

describe('caps and malformed parameters: 400 naming the parameter', () => {
  const cases: [string, string][] = [
    ['/hip4/questions?question_id=10001', 'question_id: must be an integer from 0 to 10000, got 10001'],
    ['/hip4/questions?question_id=-1', 'question_id: must be an integer from 0 to 10000, got -1'],
    ['/hip4/questions?question_id=x', 'question_id: must be an integer'],
    ['/hip4/questions?limit=1001', 'limit: must be an integer from 1 to 1000, got 1001'],
    ['/hip4/questions?limit=0', 'limit: must be an integer from 1 to 1000, got 0'],
    ['/hip4/questions?offset=-1', 'offset: must be an integer from 0 to 100000, got -1'],
    ['/hip4/questions?offset=100001', 'offset: must be an integer from 0 to 100000, got 100001'],
    ['/hip4/markets?limit=1001', 'limit: must be an integer from 1 to 1000, got 1001'],
    ['/hip4/outcomes?outcome_id=2147483648', 'outcome_id: must be an integer from 0 to 2147483647, got 2147483648'],
    ['/hip4/markets?question_id=abc', 'question_id: must be an integer'],
    ['/hip4/markets?class=', 'class: must be a non-empty string, got ""'],
    ['/hip4/fills?limit=1001', 'limit: must be an integer from 1 to 1000, got 1001'],
    ['/hip4/fills?user=0x12', 'user: must be a 0x address, got "0x12"'],
    ['/hip4/fills?coin=BTC', 'coin: must be an outcome coin id'],
    ['/hip4/fills?start=yesterday', 'start: must be an ISO 8601 datetime or epoch milliseconds'],
    ['/hip4/fills?end=99999999999999999999', 'end: must be epoch milliseconds'],
    [`/hip4/fills?start=${T0 + 1}&end=${T0}`, 'start: must not be after end'],
    ['/hip4/providers?limit=1001', 'limit: must be an integer from 1 to 1000, got 1001'],
    ['/hip4/providers?start=2026-13-45', 'start: must be an ISO 8601 datetime'],
    [`/hip4/providers?start=${T0 + 1}&end=${T0}`, 'start: must not be after end'],
    ['/hip4/deployers?limit=1001', 'limit: must be an integer from 1 to 1000, got 1001'],
    ['/hip4/analytics?limit=2001', 'limit: must be an integer from 1 to 2000, got 2001'],
    ['/hip4/analytics?interval=15m', 'interval: must be one of 1h, 4h, 1d, got "15m"'],
    ['/hip4/analytics?coin=BTC', 'coin[0]: must be an outcome coin id'],
    ['/hip4/analytics?coin=200,,201', 'coin[1]: must be an outcome coin id'],
    [`/hip4/analytics?coin=${Array.from({ length: 51 }, (_, i) => i).join(',')}`, 'coin: must name 1 to 50 coins'],
    ['/hip4/analytics?outcome_id=-5', 'outcome_id: must be an integer from 0 to 2147483647, got -5'],
    [`/hip4/analytics?start=${T0 + 1}&end=${T0}`, 'start: must not be after end'],
  ];
  it.each(cases)('%s', async (path, message) => {
    const res = await app.get(path);
    expect(res.status, res.text).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error', 'code', 'msg']);
    expect(res.body.code).toBe('bad_input');
    expect(res.body.error).toContain(message);
  });

  it('accepts every parameter at its cap', async () => {
    for (const path of [
      '/hip4/questions?question_id=10000&limit=1000&offset=100000',
      '/hip4/markets?limit=1000&outcome_id=2147483647',
      '/hip4/fills?limit=1000',
      '/hip4/providers?limit=1000',
      '/hip4/deployers?limit=1000',
      `/hip4/analytics?limit=2000&coin=${Array.from({ length: 50 }, (_, i) => i).join(',')}`,
    ]) {
      expect((await app.get(path)).status, path).toBe(200);
    }
  });
});

describe('settlement fills', () => {
  it('are HIP-4 fills but no trade of the side coin (no counterparty)', async () => {
    const { rows } = await app.db.pool.query<{ tid: number }>(
      `SELECT tid FROM markets.trades WHERE coin = '#100' ORDER BY tid`,
    );
    expect(rows.map((r) => r.tid)).toEqual([1]);
  });
});

describe('a fill row of each trader', () => {
  it('names each trader of the history', async () => {
    const users = new Set((await ok('/hip4/fills')).map((r: { user: string }) => r.user));
    expect([...users].sort()).toEqual([A1, A2, A3, A4].sort());
  });
});
