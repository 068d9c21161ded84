// The analytics domain's compat routes end to end on the hand-written history (test/analytics-history.ts), derived
// by the real job: every route's exact answer, its 400s and caps (the GraphQL fields and MCP tools:
// graphql-mcp.test.ts).
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, BUILDER, D1, D2, D3, H, OTHER_BUILDER } from '../../test/analytics-history.ts';
import { type AnalyticsServices, startAnalyticsServices } from '../../test/analytics-services.ts';
import type { TestDatabase } from '../../test/db.ts';
import { addr } from '../../test/node-files.ts';

const NOBODY = addr(0x404);
let services: AnalyticsServices;
let db: TestDatabase;
let app: FastifyInstance;

beforeAll(async () => {
  services = await startAnalyticsServices();
  ({ db, app } = services);
});
afterAll(async () => {
  await services?.close();
});

async function get(url: string) {
  const res = await app.inject({ method: 'GET', url });
  return { status: res.statusCode, body: res.json() };
}
async function post(url: string, payload: unknown) {
  const res = await app.inject({ method: 'POST', url, payload: payload as object });
  return { status: res.statusCode, body: res.json() };
}

describe('/users/{user}/pnl-calendar', () => {
  it('one row per UTC day, net = realized − fees + funding, cumulative, and totals', async () => {
    const { status, body } = await get(`/users/${ALICE}/pnl-calendar?window=all`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, window: 'all' });
    expect(body.data).toEqual([
      {
        date: '2026-11-20',
        realized_pnl: '20',
        fees: '2.2',
        funding: '2',
        net_pnl: '19.8',
        cumulative_net_pnl: '19.8',
        fills: 2,
        volume: '220',
        equity_close: '10019.8',
      },
      {
        date: '2026-11-21',
        realized_pnl: '-16',
        fees: '1.19',
        funding: '-1.5',
        net_pnl: '-18.69',
        cumulative_net_pnl: '1.11',
        fills: 3,
        volume: '230',
        equity_close: '10001.11',
      },
      {
        date: '2026-11-22',
        realized_pnl: '2.5',
        fees: '0.59',
        funding: '0',
        net_pnl: '1.91',
        cumulative_net_pnl: '3.02',
        fills: 3,
        volume: '157.5',
        equity_close: '10003.52',
      },
    ]);
    expect(body.totals).toEqual({
      days: 3,
      profitable_days: 2,
      losing_days: 1,
      flat_days: 0,
      realized_pnl: '6.5',
      fees: '3.98',
      funding: '0.5',
      net_pnl: '3.02',
      fills: 8,
      volume: '607.5',
    });
  });

  it('the default 30d window holds the three days; an unknown window is a 400', async () => {
    expect((await get(`/users/${ALICE}/pnl-calendar`)).body.data).toHaveLength(3);
    const bad = await get(`/users/${ALICE}/pnl-calendar?window=1y`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/window/);
  });
});

describe('/users/{user}/performance', () => {
  it('wins, losses, best and worst trade, drawdowns on the realized curve and on equity', async () => {
    const { status, body } = await get(`/users/${ALICE}/performance?window=all`);
    expect(status).toBe(200);
    expect(body.data).toMatchObject({
      address: ALICE,
      window: 'all',
      fills: 8,
      volume: '607.5',
      realized_pnl: '6.5',
      total_fees: '3.98',
      total_funding: '0.5',
      net_pnl: '3.02',
      trades: 3,
      wins: 2,
      losses: 1,
      win_rate: '0.666667',
      longs: 3,
      shorts: 2,
      long_short_ratio: '1.5',
      long_pct: '60',
      best_trade_pnl: '20',
      worst_trade_pnl: '-16',
      // closed trips' net: 19.8, −18.59, 1.78 → the curve falls 18.59 from its peak
      max_drawdown: '18.59',
      account_value: '10003.52',
      // equity peaks at 10019.8 (D1 04:00) and falls to 10001.11 (D2 06:00): 18.69 / 10019.8 = 0.186531 %, in
      // percent like equity-history's max_drawdown_pct (it was the fraction 0.00186531: one unit for every _pct)
      equity_max_drawdown_usd: '18.69',
      equity_max_drawdown_pct: '0.186531',
      equity_snapshots: 11,
      end_time: '2026-11-22T12:00:00.000',
    });
  });

  it('start_time and end_time take precedence over window', async () => {
    const { body } = await get(
      `/users/${ALICE}/performance?window=7d&start_time=2026-11-21T00:00:00&end_time=2026-11-21T23:59:59`,
    );
    expect(body.data).toMatchObject({ window: 'custom', fills: 3, realized_pnl: '-16', trades: 1, losses: 1, wins: 0 });
  });

  it('sums whole days from the daily rows and the edge hours from the hourly ones: the same as every hour summed', async () => {
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19);
    const windows = [
      [D1, D3 + 11 * H], // whole days and a trailing edge
      [D1 + 2 * H, D2 + 5 * H], // edges both sides of one day boundary
      [D1 + 30 * 60_000, D3 + 12 * H], // a start inside an hour
      [D2 + 3 * H, D2 + 4 * H], // inside one day
      [D1 + 5 * H, D2 + 23 * H], // ending on a day's last hour (a whole day)
    ];
    for (const [start, end] of windows as [number, number][]) {
      const { body } = await get(`/users/${ALICE}/performance?start_time=${iso(start)}&end_time=${iso(end)}`);
      const { rows } = await db.pool.query(
        `SELECT coalesce(sum(fills), 0)::int AS fills, trim_scale(coalesce(sum(volume), 0))::text AS volume,
           trim_scale(coalesce(sum(realized_pnl), 0))::text AS realized_pnl,
           trim_scale(coalesce(sum(funding), 0))::text AS total_funding
         FROM analytics.user_hourly WHERE address = $1 AND hour >= $2 AND hour <= $3`,
        [ALICE, Math.floor(start / H) * H, end],
      );
      expect(body.data, `${iso(start)} → ${iso(end)}`).toMatchObject(rows[0]);
    }
  });

  it('400 on a bad address, window or time', async () => {
    for (const url of [
      '/users/0x123/performance',
      `/users/${ALICE}/performance?window=1d`,
      `/users/${ALICE}/performance?start_time=yesterday`,
      `/users/${ALICE}/performance?start_time=2026-11-22T00:00:00&end_time=2026-11-21T00:00:00`,
    ]) {
      const { status, body } = await get(url);
      expect(status, url).toBe(400);
      expect(typeof body.error).toBe('string');
    }
  });
});

describe('POST /users/batch/performance', () => {
  it('one entry per submitted address in submission order; drawdown only when asked', async () => {
    const { status, body } = await post('/users/batch/performance', {
      addresses: [BOB, ALICE.toUpperCase().replace('0X', '0x'), NOBODY, ALICE],
      window: 'all',
    });
    expect(status).toBe(200);
    expect(body.data.map((e: { address: string }) => e.address)).toEqual([BOB, ALICE, NOBODY, ALICE]);
    expect(body.data[0]).toMatchObject({ net_pnl: '49.15', wins: 1, trades: 1 });
    expect(body.data[2]).toMatchObject({ fills: 0, trades: 0, net_pnl: '0', win_rate: null, account_value: null });
    expect(body.data[0]).not.toHaveProperty('max_drawdown');
    const withDrawdown = await post('/users/batch/performance', {
      addresses: [ALICE],
      window: 'all',
      include_drawdown: true,
    });
    expect(withDrawdown.body.data[0]).toMatchObject({ max_drawdown: '18.59', equity_max_drawdown_usd: '18.69' });
    // The two forms read the trips by different statements: every field they share agrees.
    expect(withDrawdown.body.data[0]).toMatchObject(body.data[1]);
  });

  it('1 to 500 addresses: 0 and 501 are 400s, 500 is answered', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => addr(0x10000 + i));
    expect((await post('/users/batch/performance', { addresses: many(500) })).status).toBe(200);
    for (const payload of [
      { addresses: many(501) },
      { addresses: [] },
      {},
      { addresses: ['0x12'] },
      { addresses: [ALICE], window: '1y' },
    ]) {
      const { status, body } = await post('/users/batch/performance', payload);
      expect(status, JSON.stringify(payload).slice(0, 60)).toBe(400);
      expect(typeof body.error).toBe('string');
    }
  });
});

describe('/users/{user}/top-trades', () => {
  const coins = async (query: string) => {
    const { status, body } = await get(`/users/${ALICE}/top-trades${query}`);
    expect(status).toBe(200);
    return body.data.map((t: { coin: string; status: string; pnl: string }) => `${t.coin} ${t.status} ${t.pnl}`);
  };

  it('sorts by pnl (default), pnl_abs, notional and loss; open positions unless include_open=false', async () => {
    expect(await coins('')).toEqual(['BTC closed 20', 'SOL closed 2', 'SOL open 1', 'BTC open 0', 'ETH closed -16']);
    expect(await coins('?sort=pnl_abs')).toEqual([
      'BTC closed 20',
      'ETH closed -16',
      'SOL closed 2',
      'SOL open 1',
      'BTC open 0',
    ]);
    expect(await coins('?sort=notional')).toEqual([
      'BTC open 0',
      'ETH closed -16',
      'BTC closed 20',
      'SOL open 1',
      'SOL closed 2',
    ]);
    expect(await coins('?sort=loss')).toEqual([
      'ETH closed -16',
      'BTC open 0',
      'SOL open 1',
      'SOL closed 2',
      'BTC closed 20',
    ]);
    expect(await coins('?include_open=false')).toEqual(['BTC closed 20', 'SOL closed 2', 'ETH closed -16']);
    expect(await coins('?limit=2')).toEqual(['BTC closed 20', 'SOL closed 2']);
  });

  it('a closed trade carries closed_at, an open one status open and no closed_at', async () => {
    const { body } = await get(`/users/${ALICE}/top-trades?sort=notional&limit=3`);
    expect(body.data[0]).toEqual({
      coin: 'BTC',
      direction: 'long',
      status: 'open',
      leverage: expect.any(String),
      pnl: '0',
      realized_pnl: '0',
      net_pnl: '-0.11',
      fees: '0.11',
      funding: '0',
      size: '1',
      notional: '110',
      entry_px: '110',
      exit_px: null,
      fills: 1,
      opened_at: '2026-11-22T02:00:00.000',
    });
    expect(body.data[1]).toMatchObject({
      coin: 'ETH',
      direction: 'short',
      status: 'closed',
      pnl: '-16',
      net_pnl: '-18.59',
      fees: '1.09',
      funding: '-1.5',
      entry_px: '51',
      exit_px: '59',
      closed_at: '2026-11-21T04:00:00.000',
    });
  });

  it('limit 1 to 50, sort one of four: else 400', async () => {
    for (const q of ['?limit=0', '?limit=51', '?sort=best', '?include_open=maybe']) {
      expect((await get(`/users/${ALICE}/top-trades${q}`)).status, q).toBe(400);
    }
    expect((await get(`/users/${ALICE}/top-trades?limit=50`)).status).toBe(200);
  });
});

describe('/users/{user}/equity-history', () => {
  it('hourly points and a summary with the change and max drawdown; 1d keeps each day’s close', async () => {
    const { body } = await get(`/users/${ALICE}/equity-history?window=all`);
    expect(body.data).toHaveLength(11);
    expect(body.data[0]).toEqual({
      time: '2026-11-20T01:00:00.000',
      account_value: '10000',
      cash: '10000',
      position_value: '0',
      unrealized_pnl: '0',
      account_leverage: '0',
      n_positions: 0,
    });
    expect(body.summary).toEqual({
      points: 11,
      start_value: '10000',
      end_value: '10003.52',
      change: '3.52',
      change_pct: '0.0352',
      max_drawdown_usd: '18.69',
      max_drawdown_pct: '0.186531',
    });
    const daily = await get(`/users/${ALICE}/equity-history?window=all&interval=1d`);
    expect(daily.body.data.map((p: { account_value: string }) => p.account_value)).toEqual([
      '10019.8',
      '10001.11',
      '10003.52',
    ]);
    expect((await get(`/users/${ALICE}/equity-history?interval=5m`)).status).toBe(400);
  });
});

describe('/users/leaderboard', () => {
  it('ranks a window by a metric with total_count, has_more and refreshed_at', async () => {
    const { status, body } = await get('/users/leaderboard?window=all&by=volume');
    expect(status).toBe(200);
    expect(body).toMatchObject({ success: true, total_count: 2, has_more: false, window: 'all', by: 'volume' });
    expect(body.refreshed_at).toBe('2026-11-22T12:00:00.000');
    expect(body.data.map((r: { address: string; rank: number }) => [r.rank, r.address])).toEqual([
      [1, BOB],
      [2, ALICE],
    ]);
    expect(body.data[1]).toEqual({
      rank: 2,
      address: ALICE,
      fills: 8,
      trades: 3,
      volume: '607.5',
      realized_pnl: '6.5',
      fees: '3.98',
      funding: '0.5',
      pnl: '3.02',
      wins: 2,
      losses: 1,
      win_rate: '0.666667',
      // net / volume in percent: 3.02 / 607.5 × 100 = 0.497119 (it was the fraction 0.00497119)
      pnl_pct: '0.497119',
      account_value: '10003.52',
      unrealized_pnl: '0.5',
      refreshed_at: '2026-11-22T12:00:00.000',
    });
    const page2 = await get('/users/leaderboard?window=7d&by=pnl&limit=1&page=2');
    expect(page2.body).toMatchObject({ total_count: 2, has_more: false });
    expect(page2.body.data.map((r: { rank: number; address: string }) => [r.rank, r.address])).toEqual([[2, ALICE]]);
    expect((await get('/users/leaderboard?window=7d&by=pnl&limit=1')).body.has_more).toBe(true);
  });

  it('ratio metrics rank only accounts with min_trades closed trips (default 10)', async () => {
    expect((await get('/users/leaderboard?window=all&by=win_rate')).body.total_count).toBe(0);
    const { body } = await get('/users/leaderboard?window=all&by=win_rate&min_trades=1');
    expect(body.data.map((r: { address: string; win_rate: string }) => [r.address, r.win_rate])).toEqual([
      [BOB, '1'],
      [ALICE, '0.666667'],
    ]);
  });

  it('without window: the live top 100 over the last hours', async () => {
    const { body } = await get('/users/leaderboard?by=volume&hours=24');
    expect(body).toMatchObject({ window: null, total_count: 1, has_more: false });
    expect(body.data).toEqual([expect.objectContaining({ rank: 1, address: ALICE, fills: 3, volume: '157.5' })]);
  });

  it('limit up to 500, page from 1, known window and metric: else 400', async () => {
    expect((await get('/users/leaderboard?window=all&limit=500')).status).toBe(200);
    for (const q of ['limit=501', 'limit=0', 'page=0', 'window=1d', 'by=sharpe', 'hours=169', 'min_trades=-1']) {
      const { status, body } = await get(`/users/leaderboard?${q}`);
      expect(status, q).toBe(400);
      expect(typeof body.error).toBe('string');
    }
  });

  it('coexists with the accounts domain’s /users/{user}/account', async () => {
    expect((await get(`/users/${ALICE}/account`)).status).toBe(200);
  });
});

describe('POST /builders/{builder}/external-activity', () => {
  it('flags wallets trading through other builders, first by external volume, with a summary', async () => {
    const { status, body } = await post(`/builders/${BUILDER}/external-activity`, {
      addresses: [NOBODY, ALICE, BOB],
      timeframe: '30d',
    });
    expect(status).toBe(200);
    expect(body.data.map((w: { address: string }) => w.address)).toEqual([BOB, ALICE, NOBODY]);
    expect(body.data[1]).toEqual({
      address: ALICE,
      flagged: true,
      external_volume: '102',
      externalBuilders: [
        {
          builder: OTHER_BUILDER,
          fills: 1,
          notional: '102',
          coins: ['ETH'],
          first_fill: '2026-11-21T01:00:00.000',
          last_fill: '2026-11-21T01:00:00.000',
        },
      ],
      noBuilder: {
        fills: 5,
        notional: '295.5',
        coins: ['BTC', 'ETH', 'SOL'],
        first_fill: '2026-11-20T03:00:00.000',
        last_fill: '2026-11-22T03:00:00.000',
      },
      own: {
        fills: 2,
        notional: '210',
        coins: ['BTC'],
        first_fill: '2026-11-20T01:00:00.000',
        last_fill: '2026-11-22T02:00:00.000',
      },
    });
    expect(body.summary).toEqual({ wallets: 3, flagged: 2, own_only: 0, no_builder_only: 0, inactive: 1 });
    const without = await post(`/builders/${BUILDER}/external-activity`, {
      addresses: [ALICE],
      timeframe: '30d',
      includeNoBuilder: false,
    });
    expect(without.body.data[0].noBuilder).toBeNull();
    // The default timeframe (7d) from D3 12:00 still holds everything; 1h nothing.
    const lastHour = await post(`/builders/${BUILDER}/external-activity`, { addresses: [ALICE], timeframe: '1h' });
    expect(lastHour.body.summary).toMatchObject({ inactive: 1 });
  });

  it('joins the coins of hours with different numbers of coins', async () => {
    const wallet = addr(0x5e1f);
    await db.pool.query(
      `INSERT INTO analytics.builder_hourly (builder, address, hour, fills, notional, coins, first_fill, last_fill)
       VALUES ($1, $2, $3, 2, 10, '{BTC,ETH}', $3, $3), ($1, $2, $4, 1, 5, '{SOL}', $4, $4)`,
      [OTHER_BUILDER, wallet, D3, D3 + H],
    );
    const { status, body } = await post(`/builders/${BUILDER}/external-activity`, { addresses: [wallet] });
    expect(status).toBe(200);
    expect(body.data[0].externalBuilders[0]).toMatchObject({ fills: 3, notional: '15', coins: ['BTC', 'ETH', 'SOL'] });
  });

  it('1 to 500 wallets, a known timeframe, a valid builder: else 400', async () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => addr(0x20000 + i));
    expect((await post(`/builders/${BUILDER}/external-activity`, { addresses: many(500) })).status).toBe(200);
    for (const [url, payload] of [
      [`/builders/${BUILDER}/external-activity`, { addresses: many(501) }],
      [`/builders/${BUILDER}/external-activity`, { addresses: [] }],
      [`/builders/${BUILDER}/external-activity`, { addresses: [ALICE], timeframe: '2h' }],
      ['/builders/0xnope/external-activity', { addresses: [ALICE] }],
    ] as const) {
      const { status, body } = await post(url, payload);
      expect(status, url).toBe(400);
      expect(typeof body.error).toBe('string');
    }
  });
});
