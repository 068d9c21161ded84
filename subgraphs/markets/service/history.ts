// The market-history archive: a sampler that records every coin's BBO, depth bands, slippage and top-20 book
// from the live books every few seconds, and the queries behind /market/* (bbo, spread, depth, slippage, book and
// a liquidity report over a window).
import type pg from 'pg';
import type { OrderBooks } from './book.ts';
import { latestPerKey } from './sql.ts';

export const SLIPPAGE_NOTIONALS = ['1000', '10000', '100000'] as const;

export interface HistoryWindow {
  startTime: number;
  endTime: number;
  limit: number;
}

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
      this.running ??= this.sampleOnce()
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

  /** One sample of every coin with a two-sided book, at `now`. */
  async sampleOnce(): Promise<number> {
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
    if (!depth[0]?.length) return 0;
    await this.pool.query(
      `INSERT INTO markets.history_bbo (coin, time, bid_px, bid_sz, bid_n, ask_px, ask_sz, ask_n)
       SELECT c, $8, bp, bs, bn, ap, az, an
       FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::int[], $5::numeric[], $6::numeric[], $7::int[])
         AS u(c, bp, bs, bn, ap, az, an)
       ON CONFLICT DO NOTHING`,
      [...bbo, time],
    );
    await this.pool.query(
      `INSERT INTO markets.history_depth (coin, time, mid_px, bands)
       SELECT c, $4, m, b::jsonb FROM unnest($1::text[], $2::numeric[], $3::text[]) AS u(c, m, b) ON CONFLICT DO NOTHING`,
      [...depth, time],
    );
    await this.pool.query(
      `INSERT INTO markets.history_slippage (coin, time, notional, buy_bps, sell_bps)
       SELECT c, $5, n, b, s FROM unnest($1::text[], $2::numeric[], $3::numeric[], $4::numeric[]) AS u(c, n, b, s)
       ON CONFLICT DO NOTHING`,
      [...slip, time],
    );
    await this.pool.query(
      `INSERT INTO markets.history_book (coin, time, levels)
       SELECT c, $3, l::jsonb FROM unnest($1::text[], $2::text[]) AS u(c, l) ON CONFLICT DO NOTHING`,
      [...book, time],
    );
    return depth[0].length;
  }
}

/** Coins with archived history. */
export async function historyCoins(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ coin: string }>(
    `${latestPerKey('markets.history_bbo', 'coin', 'coin')} ORDER BY coin`,
  );
  return rows.map((r) => r.coin);
}

/** Rows of one history table for a coin, newest first; one more than `limit` is fetched to tell `hasMore`. */
async function windowRows<T extends pg.QueryResultRow>(pool: pg.Pool, select: string, coin: string, w: HistoryWindow) {
  const { rows } = await pool.query<T>(
    `${select} WHERE coin = $1 AND time >= $2 AND time <= $3 ORDER BY time DESC LIMIT $4`,
    [coin, w.startTime, w.endTime, w.limit + 1],
  );
  return { rows: rows.slice(0, w.limit), hasMore: rows.length > w.limit };
}

export const bboHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows(
    pool,
    `SELECT time, bid_px::text AS bid_px, bid_sz::text AS bid_sz, bid_n, ask_px::text AS ask_px, ask_sz::text AS ask_sz, ask_n
     FROM markets.history_bbo`,
    coin,
    w,
  );

export const spreadHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows(
    pool,
    `SELECT time, bid_px::text AS bid_px, ask_px::text AS ask_px, spread::text AS spread,
       round(spread_bps, 4)::text AS spread_bps FROM markets.history_spread`,
    coin,
    w,
  );

export const depthHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows(pool, 'SELECT time, mid_px::text AS mid_px, bands FROM markets.history_depth', coin, w);

export const bookHistory = (pool: pg.Pool, coin: string, w: HistoryWindow) =>
  windowRows(pool, 'SELECT time, levels FROM markets.history_book', coin, w);

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
       ORDER BY time DESC LIMIT $4)
     ORDER BY time DESC, notional`,
    [coin, w.startTime, w.endTime, w.limit + 1],
  );
  const times = [...new Set(rows.map((r) => r.time))];
  const kept = new Set(times.slice(0, w.limit));
  return { rows: rows.filter((r) => kept.has(r.time)), hasMore: times.length > w.limit };
}

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
