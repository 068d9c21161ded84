// The fill of the HIP-3 rollup (markets.hip3_trade_hours, hip3_trade_totals) from the trades stored before it existed
// (migration 0024): a few hours of one coin per transaction, resumable from markets.hip3_trade_fill, which is deleted
// once every coin is done. Ingest adds the trades it stores meanwhile to the same rows (ingest/formats/fills.ts).
import type pg from 'pg';
import { inTransaction, WRITE_STATEMENT_TIMEOUT_MS } from '../../../db/pool.ts';
import { lockSharedRows } from '../../../db/shared-rows.ts';
import { isHip3Coin } from '../../../wire/coins.ts';
import type { StreamName } from '../../../wire/node-lines.ts';

const HOUR_MS = 3_600_000;
/**
 * Hours of one coin per step: at mainnet's HIP-3 rate (~33 000 trades an hour over all its coins) at most ~200 000
 * trades, about a second at the bench's fill rate and mostly far fewer, for which the lock below holds back ingest's
 * batches with HIP-3 trades.
 */
export const FILL_STEP_MS = 6 * HOUR_MS;

/**
 * The stream whose loader adds to the rollup: its lanes' statements and these steps take turns under its shared-rows
 * lock. A step sets its hours to the sums of the trades it sees under the lock: every batch that committed before is
 * among them, and one still open adds its own trades, which the step could not see, once the step has committed.
 * So the fill may cover any hour at any time, and covering one twice changes nothing.
 */
const TRADES_STREAM: StreamName = 'node_fills_by_block';

/** The hours [$2, $3) of coin $1, summed from its trades: each replaces what the rollup held for it. */
const SET_HOURS_SQL = `INSERT INTO markets.hip3_trade_hours AS h (coin, hour, trades, volume, fees)
  SELECT coin, time / 3600000 * 3600000, count(*), sum(px * sz), sum(fees)
  FROM markets.trades WHERE coin = $1 AND time >= $2 AND time < $3
  GROUP BY 1, 2
  ON CONFLICT (coin, hour) DO UPDATE SET trades = EXCLUDED.trades, volume = EXCLUDED.volume, fees = EXCLUDED.fees
  RETURNING h.trades`;

/** Coin $1's running totals, summed from its hours once they are all filled. */
const SET_TOTALS_SQL = `INSERT INTO markets.hip3_trade_totals AS c (coin, trades, volume, fees)
  SELECT coin, sum(trades), sum(volume), sum(fees) FROM markets.hip3_trade_hours WHERE coin = $1 GROUP BY coin
  ON CONFLICT (coin) DO UPDATE SET trades = EXCLUDED.trades, volume = EXCLUDED.volume, fees = EXCLUDED.fees`;

export interface FillStep {
  coin: string;
  /** Trades summed in this step (0: the coin is done, its totals set). */
  trades: number;
}

/**
 * The coin after `coin` among the trades (the first with null; null after the last): one probe of the (coin, time)
 * index, where `SELECT DISTINCT coin` would read every trade.
 */
async function nextCoin(pool: pg.Pool, coin: string | null): Promise<string | null> {
  const { rows } = await pool.query<{ coin: string | null }>(
    coin === null
      ? 'SELECT min(coin) AS coin FROM markets.trades'
      : 'SELECT min(coin) AS coin FROM markets.trades WHERE coin > $1',
    coin === null ? [] : [coin],
  );
  return rows[0]?.coin ?? null;
}

/** One step of the fill; null when there is nothing (left) to fill. */
export async function fillStep(pool: pg.Pool, stepMs = FILL_STEP_MS): Promise<FillStep | null> {
  const { rows } = await pool.query<{ coin: string | null; hour: number | null }>(
    'SELECT coin, hour FROM markets.hip3_trade_fill',
  );
  const marker = rows[0];
  if (!marker) return null;
  let { coin, hour } = marker;
  if (coin === null) coin = await nextCoin(pool, null);
  // Other coins are passed over one probe each (~500 on mainnet: spot pairs and the native perps).
  while (coin !== null && !isHip3Coin(coin)) {
    coin = await nextCoin(pool, coin);
    hour = null;
  }
  if (coin === null) {
    await pool.query('DELETE FROM markets.hip3_trade_fill');
    return null;
  }
  const { rows: first } = await pool.query<{ time: number | null }>(
    'SELECT min(time) AS time FROM markets.trades WHERE coin = $1 AND time >= $2',
    [coin, hour ?? 0],
  );
  const from = first[0]?.time ?? null;
  const done = coin;
  // With the coin done, the fill moves on to the next coin, or ends after the last one.
  const next = from === null ? await nextCoin(pool, done) : null;
  return inTransaction(pool, async (client) => {
    await client.query(`SET LOCAL statement_timeout = ${WRITE_STATEMENT_TIMEOUT_MS}`);
    await lockSharedRows(client, TRADES_STREAM, WRITE_STATEMENT_TIMEOUT_MS);
    if (from === null) {
      // Every hour of the coin is filled: its totals are its hours' sums, and ingest adds to both from here on.
      await client.query(SET_TOTALS_SQL, [done]);
      if (next === null) await client.query('DELETE FROM markets.hip3_trade_fill');
      else await client.query('UPDATE markets.hip3_trade_fill SET coin = $1, hour = NULL', [next]);
      return { coin: done, trades: 0 };
    }
    const start = Math.floor(from / HOUR_MS) * HOUR_MS;
    const until = start + stepMs;
    const { rows: hours } = await client.query<{ trades: number }>(SET_HOURS_SQL, [done, start, until]);
    await client.query('UPDATE markets.hip3_trade_fill SET coin = $1, hour = $2', [done, until]);
    return { coin: done, trades: hours.reduce((n, h) => n + h.trades, 0) };
  });
}
