// The market-history archive: a sampler that records every coin's BBO, depth bands, slippage and top-20 book
// from the live books every few seconds, and the queries behind /market/* (bbo, spread, depth, slippage, book and
// a liquidity report over a window).
import type pg from 'pg';
import { inTransaction } from '../../../db/pool.ts';
import type { OrderBooks } from './book.ts';

export const SLIPPAGE_NOTIONALS = ['1000', '10000', '100000'] as const;

export interface HistoryWindow {
  startTime: number;
  endTime: number;
  limit: number;
  /** Only samples older than this time: a page's next cursor. */
  before?: number;
}

/** A page of a series: newest first, whether older samples follow in the window, and the cursor to them. */
export interface HistoryPage<T> {
  rows: T[];
  hasMore: boolean;
  /** The time of the page's oldest sample: the next page holds the samples before it (null: none follow). */
  nextCursor: string | null;
}

/** Rows of `times` (newest first) read one sample time beyond `limit`, as a page. */
function historyPage<T extends { time: number }>(rows: T[], limit: number): HistoryPage<T> {
  const times = [...new Set(rows.map((r) => Number(r.time)))];
  const hasMore = times.length > limit;
  const kept = new Set(times.slice(0, limit));
  const page = rows.filter((r) => kept.has(Number(r.time)));
  return { rows: page, hasMore, nextCursor: hasMore ? String(times[limit - 1]) : null };
}

/** The advisory lock a sample is written under ("hlhs"), so that concurrent samplers write one sample, not several. */
const SAMPLE_LOCK = 0x686c6873;

/**
 * A sample counts for the interval when younger than this share of it: every api instance runs a sampler (each has
 * the books), and one whose timer fires after another's sample in the same interval skips. Not half: two instances
 * half an interval apart would then both write each interval. The 10% margin absorbs timer jitter, so that a lone
 * sampler never skips its own next sample.
 */
const SAMPLE_FRESH_SHARE = 0.9;

/**
 * Records the books every `intervalMs`. Any number of processes may run one on the same database: a sample is
 * written under a transaction-scoped advisory lock, and skipped when another process holds it (sampling right now) or
 * has written a sample of these coins within the last 0.9 interval, so the archive gets one sample per interval.
 */
export class HistorySampler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pool: pg.Pool,
    private readonly books: OrderBooks,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      this.running ??= this.tick()
        .then(() => {})
        .catch((err) => console.error(`market history: ${err instanceof Error ? err.message : String(err)}`))
        .finally(() => {
          this.running = undefined;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /**
   * The timer's sample: written unless another process is writing one now or wrote one within the interval (see
   * the class). Resolves to the coins sampled, 0 when skipped.
   */
  tick(): Promise<number> {
    return this.sample(true);
  }

  /** One sample of every coin with a two-sided book, at `now`, whatever other samplers wrote (tests, by hand). */
  sampleOnce(): Promise<number> {
    return this.sample(false);
  }

  private async sample(exclusive: boolean): Promise<number> {
    const time = this.now();
    const bbo: unknown[][] = [[], [], [], [], [], [], []];
    const depth: unknown[][] = [[], [], []];
    const slip: unknown[][] = [[], [], [], []];
    const book: unknown[][] = [[], []];
    for (const coin of this.books.coins()) {
      const b = this.books.bbo(coin);
      const d = this.books.depth(coin);
      if (!b || !d) continue;
      const [bid, ask] = b.bbo;
      for (const [i, v] of [coin, bid?.px, bid?.sz, bid?.n, ask?.px, ask?.sz, ask?.n].entries())
        bbo[i]?.push(v ?? null);
      depth[0]?.push(coin);
      depth[1]?.push(d.midPx);
      depth[2]?.push(JSON.stringify(d.depth));
      for (const notional of SLIPPAGE_NOTIONALS) {
        const s = this.books.slippage(coin, notional);
        slip[0]?.push(coin);
        slip[1]?.push(notional);
        slip[2]?.push(s?.buyBps ?? null);
        slip[3]?.push(s?.sellBps ?? null);
      }
      book[0]?.push(coin);
      book[1]?.push(JSON.stringify(this.books.l2(coin)?.levels ?? [[], []]));
    }
    const coins = depth[0];
    if (!coins?.length) return 0;
    return inTransaction(this.pool, async (client) => {
      if (exclusive && !(await this.mayWrite(client, coins, time))) return 0;
      await client.query(
        `INSERT INTO markets.history_bbo (coin, time, bid_px, bid_sz, bid_n, ask_px, ask_sz, ask_n)
         SELECT c, $8, bp, bs, bn, ap, az, an
         FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::int[], $5::numeric[], $6::numeric[], $7::int[])
           AS u(c, bp, bs, bn, ap, az, an)
         ON CONFLICT DO NOTHING`,
        [...bbo, time],
      );
      await client.query(
        `INSERT INTO markets.history_depth (coin, time, mid_px, bands)
         SELECT c, $4, m, b::jsonb FROM unnest($1::text[], $2::numeric[], $3::text[]) AS u(c, m, b) ON CONFLICT DO NOTHING`,
        [...depth, time],
      );
      await client.query(
        `INSERT INTO markets.history_slippage (coin, time, notional, buy_bps, sell_bps)
         SELECT c, $5, n, b, s FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::numeric[]) AS u(c, n, b, s)
         ON CONFLICT DO NOTHING`,
        [...slip, time],
      );
      await client.query(
        `INSERT INTO markets.history_book (coin, time, levels)
         SELECT c, $3, l::jsonb FROM unnest($1::text[], $2::text[]) AS u(c, l) ON CONFLICT DO NOTHING`,
        [...book, time],
      );
      await client.query(REGISTER_HISTORY_COINS, [coins]);
      return coins.length;
    });
  }

  /** Takes the sample lock for the transaction, then whether no sample of `coins` is fresh at `time`. */
  private async mayWrite(client: pg.PoolClient, coins: unknown[], time: number): Promise<boolean> {
    const { rows: lock } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [
      SAMPLE_LOCK,
    ]);
    if (!lock[0]?.locked) return false;
    const { rows: fresh } = await client.query<{ sampled: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM markets.history_depth WHERE coin = ANY($1) AND time > $2) AS sampled',
      [coins, time - this.intervalMs * SAMPLE_FRESH_SHARE],
    );
    return !fresh[0]?.sampled;
  }
}

/** The statement that adds coins (`$1::text[]`) to the archive's list, in the transaction writing their samples. */
export const REGISTER_HISTORY_COINS = `INSERT INTO markets.history_coins (coin) SELECT DISTINCT c FROM unnest($1::text[]) c
  ON CONFLICT DO NOTHING`;

/** Coins with archived history: the list the writers of samples keep (migration 0037). */
export async function historyCoins(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ coin: string }>('SELECT coin FROM markets.history_coins ORDER BY coin');
  return rows.map((r) => r.coin);
}

/** Rows of one history table for a coin, newest first; one more than `limit` is fetched to tell `hasMore`. */
async function windowRows<T extends pg.QueryResultRow & { time: number }>(
  pool: pg.Pool,
  select: string,
  coin: string,
  w: HistoryWindow,
): Promise<HistoryPage<T>> {
  const { rows } = await pool.query<T>(
    `${select} WHERE coin = $1 AND time >= $2 AND time <= $3 AND ($5::bigint IS NULL OR time < $5)
     ORDER BY time DESC LIMIT $4`,
    [coin, w.startTime, w.endTime, w.limit + 1, w.before ?? null],
  );
  return historyPage(rows, w.limit);
}

export const bboHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows<{ time: number }>(
    pool,
    `SELECT time, bid_px::text AS bid_px, bid_sz::text AS bid_sz, bid_n, ask_px::text AS ask_px, ask_sz::text AS ask_sz, ask_n
     FROM markets.history_bbo`,
    coin,
    w,
  );

export const spreadHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows<{ time: number }>(
    pool,
    `SELECT time, bid_px::text AS bid_px, ask_px::text AS ask_px, spread::text AS spread,
       round(spread_bps, 4)::text AS spread_bps FROM markets.history_spread`,
    coin,
    w,
  );

export const depthHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows<{ time: number }>(pool, 'SELECT time, mid_px::text AS mid_px, bands FROM markets.history_depth', coin, w);

export const bookHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows<{ time: number }>(pool, 'SELECT time, levels FROM markets.history_book', coin, w);

export async function slippageHistory(pool: pg.Pool, coin: string, w: HistoryWindow) {
  // One sample time carries a row per notional: page by sample times, not rows.
  const { rows } = await pool.query<{
    time: number;
    notional: string;
    buy_bps: string | null;
    sell_bps: string | null;
  }>(
    `SELECT time, notional::text AS notional, buy_bps::text AS buy_bps, sell_bps::text AS sell_bps
     FROM markets.history_slippage
     WHERE coin = $1 AND time IN (
       SELECT DISTINCT time FROM markets.history_slippage WHERE coin = $1 AND time >= $2 AND time <= $3
         AND ($5::bigint IS NULL OR time < $5)
       ORDER BY time DESC LIMIT $4)
     ORDER BY time DESC, notional`,
    [coin, w.startTime, w.endTime, w.limit + 1, w.before ?? null],
  );
  return historyPage(rows, w.limit);
}

/** The archive's per-coin series (the path endpoints `/market/<name>/:coin`), each newest first. */
export const HISTORY_SERIES = {
  bbo: bboHistory,
  spread: spreadHistory,
  depth: depthHistory,
  slippage: slippageHistory,
  book: bookHistory,
} as const;
export type HistorySeries = keyof typeof HISTORY_SERIES;
export const HISTORY_SERIES_NAMES = Object.keys(HISTORY_SERIES) as HistorySeries[];

/** Averages over a window: spread, depth per band, slippage per notional. */
export async function liquidityReport(pool: pg.Pool, coin: string, startTime: number, endTime: number) {
  const params = [coin, startTime, endTime];
  const where = 'coin = $1 AND time >= $2 AND time <= $3';
  const [spread, depth, slippage] = await Promise.all([
    pool.query<{ samples: number; avg: string | null; median: string | null; max: string | null }>(
      `SELECT count(*)::int AS samples, round(avg(spread_bps), 4)::text AS avg,
         round(percentile_cont(0.5) WITHIN GROUP (ORDER BY spread_bps)::numeric, 4)::text AS median,
         round(max(spread_bps), 4)::text AS max
       FROM markets.history_spread WHERE ${where}`,
      params,
    ),
    pool.query<{ band: string; bid: string; ask: string }>(
      `SELECT b.key AS band, round(avg((b.value->>'bidDepthUsd')::numeric), 2)::text AS bid,
         round(avg((b.value->>'askDepthUsd')::numeric), 2)::text AS ask
       FROM markets.history_depth, jsonb_each(bands) b WHERE ${where} GROUP BY b.key ORDER BY b.key::int`,
      params,
    ),
    pool.query<{ notional: string; buy: string | null; sell: string | null }>(
      `SELECT notional::text AS notional, round(avg(buy_bps), 4)::text AS buy, round(avg(sell_bps), 4)::text AS sell
       FROM markets.history_slippage WHERE ${where} GROUP BY notional ORDER BY notional`,
      params,
    ),
  ]);
  const s = spread.rows[0];
  return {
    coin,
    start_time: startTime,
    end_time: endTime,
    samples: s?.samples ?? 0,
    spread_bps: { avg: s?.avg ?? null, median: s?.median ?? null, max: s?.max ?? null },
    depth_usd: Object.fromEntries(depth.rows.map((r) => [r.band, { bid: r.bid, ask: r.ask }])),
    slippage_bps: Object.fromEntries(slippage.rows.map((r) => [r.notional, { buy: r.buy, sell: r.sell }])),
  };
}

// ---- availableDates ----

/**
 * The stored market-history datasets availableDates reports, each a table indexed on (coin, time): trades, 1m
 * candles, asset contexts, funding rates, and the archive's series (l2Book snapshots, bbo, depth bands, slippage).
 */
export const HISTORY_DATASETS = {
  trades: { table: 'markets.trades', time: 'time', where: 'true' },
  candles: { table: 'markets.candles', time: 't', where: `interval = '1m'` },
  assetCtxs: { table: 'markets.asset_ctxs', time: 'time', where: 'true' },
  fundingRates: { table: 'markets.funding_rates', time: 'time', where: 'true' },
  l2Book: { table: 'markets.history_book', time: 'time', where: 'true' },
  bbo: { table: 'markets.history_bbo', time: 'time', where: 'true' },
  depth: { table: 'markets.history_depth', time: 'time', where: 'true' },
  slippage: { table: 'markets.history_slippage', time: 'time', where: 'true' },
} as const;

export type HistoryDataset = keyof typeof HISTORY_DATASETS;
export const HISTORY_DATASET_NAMES = Object.keys(HISTORY_DATASETS) as HistoryDataset[];

const DAY_MS = 86_400_000;

/** `coin → dataset → ["YYYY-MM-DD", ...]` (UTC days, ascending). */
export type AvailableDates = Record<string, Partial<Record<HistoryDataset, string[]>>>;

/**
 * The UTC dates on which each dataset holds at least one row, per coin: one index probe per coin and date (a
 * skip scan from each day to the next one holding a row), never a scan of the rows. With `coin`, that coin only
 * (always present, its datasets [] when empty); without, every coin holding a row in one of `datasets`. Every coin
 * lists each of `datasets`.
 */
export async function availableDates(
  pool: pg.Pool,
  q: { coin?: string; datasets: readonly HistoryDataset[] },
): Promise<AvailableDates> {
  const found = await Promise.all(
    q.datasets.map(async (dataset) => {
      const { table, time, where } = HISTORY_DATASETS[dataset];
      const first = (coin: string, from: string) =>
        `(SELECT floor(t.${time}::numeric / ${DAY_MS})::bigint FROM ${table} t
          WHERE t.coin = ${coin} AND ${where} AND t.${time} >= ${from} ORDER BY t.${time} LIMIT 1)`;
      const coins =
        q.coin === undefined
          ? `WITH RECURSIVE k AS (
               (SELECT coin AS v FROM ${table} ORDER BY coin LIMIT 1)
               UNION ALL
               SELECT (SELECT coin FROM ${table} WHERE coin > k.v ORDER BY coin LIMIT 1) FROM k WHERE k.v IS NOT NULL
             ), coins AS (SELECT v FROM k WHERE v IS NOT NULL),`
          : 'WITH RECURSIVE coins AS (SELECT $1::text AS v),';
      const { rows } = await pool.query<{ coin: string; day: string }>(
        `${coins} d AS (
           SELECT c.v AS coin, ${first('c.v', '0')} AS day FROM coins c
           UNION ALL
           SELECT d.coin, ${first('d.coin', `(d.day + 1) * ${DAY_MS}`)} FROM d WHERE d.day IS NOT NULL
         )
         SELECT coin, day::text AS day FROM d WHERE day IS NOT NULL ORDER BY coin, day`,
        q.coin === undefined ? [] : [q.coin],
      );
      return { dataset, rows };
    }),
  );
  const coins = new Set(q.coin === undefined ? [] : [q.coin]);
  for (const { rows } of found) for (const r of rows) coins.add(r.coin);
  const out: AvailableDates = {};
  for (const coin of [...coins].sort()) out[coin] = Object.fromEntries(q.datasets.map((d) => [d, []]));
  for (const { dataset, rows } of found) {
    for (const r of rows) {
      out[r.coin]?.[dataset]?.push(new Date(Number(r.day) * DAY_MS).toISOString().slice(0, 10));
    }
  }
  return out;
}
