// node_fills_by_block: every fill row (with the perp account state they make), the trades paired from the two sides of
// a match (with the HIP-3 rollup of those trades), liquidation rows and the HIP-4 outcome fills.
import type { FillRow, LiquidationRow } from '../../db/rows/accounts.ts';
import { fillsTable, liquidationsTable } from '../../db/rows/accounts.ts';
import { hip4FillsTable } from '../../db/rows/hip4.ts';
import type { TradeRow } from '../../db/rows/markets.ts';
import { tradesTable } from '../../db/rows/markets.ts';
import { isPerpCoin } from '../../domains/accounts/port.ts';
import { addDecimal, mulDecimal } from '../../platform/decimal.ts';
import {
  address,
  addressValue,
  array,
  bool,
  dec,
  FieldError,
  int,
  object,
  optDec,
  optInt,
  optStr,
  side,
  str,
} from '../../platform/fields.ts';
import { isHip3Coin } from '../../wire/coins.ts';
import type { StreamLoader } from './loader.ts';

/** A fill event of a block line; `eventIndex` is its index in the line's `events` (the node's execution order). */
export function parseFill(event: unknown, blockNumber: number, eventIndex: number): FillRow {
  const pair = array(event, 'event');
  if (pair.length !== 2) throw new FieldError('event: must be [user, fill]');
  const user = addressValue(pair[0], 'user');
  const f = object(pair[1], 'fill');
  const liq = f.liquidation === undefined || f.liquidation === null ? null : object(f.liquidation, 'liquidation');
  const builder = optStr(f, 'builder');
  return {
    block_number: blockNumber,
    address: user,
    coin: str(f, 'coin'),
    px: dec(f, 'px'),
    sz: dec(f, 'sz'),
    side: side(f, 'side'),
    time: int(f, 'time'),
    start_position: dec(f, 'startPosition'),
    dir: str(f, 'dir'),
    closed_pnl: dec(f, 'closedPnl'),
    hash: str(f, 'hash'),
    oid: int(f, 'oid'),
    crossed: bool(f, 'crossed'),
    fee: dec(f, 'fee'),
    tid: int(f, 'tid'),
    fee_token: str(f, 'feeToken'),
    cloid: optStr(f, 'cloid'),
    twap_id: optInt(f, 'twapId'),
    builder: builder === null ? null : builder.toLowerCase(),
    builder_fee: optDec(f, 'builderFee'),
    deployer_fee: optDec(f, 'deployerFee'),
    priority_gas: optDec(f, 'priorityGas'),
    liquidated_user: liq ? address(liq, 'liquidatedUser') : null,
    liquidation_mark_px: liq ? dec(liq, 'markPx') : null,
    liquidation_method: liq ? str(liq, 'method') : null,
    event_index: eventIndex,
  };
}

/** The trade a matched pair of fills makes: the taker's side, buyer and seller. */
function pairTrades(fills: FillRow[]): TradeRow[] {
  // Insertion order of the map = order of each match's first fill in the block = execution order.
  const byKey = new Map<string, FillRow[]>();
  for (const f of fills) {
    const key = `${f.coin}\u0000${f.tid}`;
    const group = byKey.get(key);
    if (group) group.push(f);
    else byKey.set(key, [f]);
  }
  const trades: TradeRow[] = [];
  let seq = 0;
  for (const group of byKey.values()) {
    const first = group[0] as FillRow;
    const taker = group.find((f) => f.crossed) ?? first;
    trades.push({
      block_number: first.block_number,
      seq: seq++,
      time: taker.time,
      coin: taker.coin,
      side: taker.side,
      px: taker.px,
      sz: taker.sz,
      hash: taker.hash,
      tid: taker.tid,
      buyer: group.find((f) => f.side === 'B')?.address ?? null,
      seller: group.find((f) => f.side === 'A')?.address ?? null,
      fees: group.reduce((sum, f) => addDecimal(sum, f.fee), '0'),
    });
  }
  return trades;
}

function liquidationOf(f: FillRow): LiquidationRow | null {
  if (!f.liquidated_user || f.liquidated_user === f.address) return null;
  return {
    block_number: f.block_number,
    time: f.time,
    hash: f.hash,
    tid: f.tid,
    coin: f.coin,
    liquidated_user: f.liquidated_user,
    liquidator: f.address,
    side: f.side,
    px: f.px,
    sz: f.sz,
    notional: mulDecimal(f.px, f.sz),
    mark_px: f.liquidation_mark_px,
    method: f.liquidation_method ?? 'market',
    builder: f.builder,
  };
}

const OUTCOME_COIN = /^#(\d+)$/;
/** The `dir` of a HIP-4 settlement fill. */
const SETTLEMENT_DIR = 'Settlement';

/**
 * The HIP-3 trades of a batch added to their coin's hour and running totals (markets.hip3_trade_hours,
 * hip3_trade_totals), in the transaction that stores them: once per batch (Batch.collect), from the very rows its COPY
 * stores (markets.trades has no key a conflict could skip them by). A block its lane meets again (a node re-emitting
 * it, a restart) is skipped by the lane's checkpoint, lanes hold different blocks, and an archive hour already held is
 * left out by the import: the rollup counts each trade as the table holds it, once. Run under the stream's shared-rows
 * lock (Batch.write), as the rollup's fill of older trades is (domains/markets/writer/): the present and a backfill
 * lane add to the same coins' rows. Prices, sizes and fees go as the text COPY gets, so each sum keeps the scale a sum
 * over markets.trades has.
 */
const HIP3_ROLLUP_SQL = `WITH t AS MATERIALIZED (
    SELECT coin, time / 3600000 * 3600000 AS hour, px * sz AS volume, fees
    FROM unnest($1::text[], $2::int8[], $3::numeric[], $4::numeric[], $5::numeric[]) AS u(coin, time, px, sz, fees)
  ), hours AS (
    INSERT INTO markets.hip3_trade_hours AS h (coin, hour, trades, volume, fees)
    SELECT coin, hour, count(*), sum(volume), sum(fees) FROM t GROUP BY coin, hour
    ON CONFLICT (coin, hour) DO UPDATE SET trades = h.trades + EXCLUDED.trades, volume = h.volume + EXCLUDED.volume,
      fees = h.fees + EXCLUDED.fees
  )
  INSERT INTO markets.hip3_trade_totals AS c (coin, trades, volume, fees)
  SELECT coin, count(*), sum(volume), sum(fees) FROM t GROUP BY coin
  ON CONFLICT (coin) DO UPDATE SET trades = c.trades + EXCLUDED.trades, volume = c.volume + EXCLUDED.volume,
    fees = c.fees + EXCLUDED.fees`;

/**
 * A batch's perp fills added to their users' account state (accounts.perp_cash, perp_positions: migration 0028), in
 * the transaction that stores them and from the same rows, once per batch (Batch.collect): each fill counts once, as
 * the rollup above. The function takes the account state's own lock (the misc events' lanes add to the same rows), and
 * continues each position's walk where it was, or marks it stale when a fill arrives before it (a backfill lane).
 */
const ACCOUNT_STATE_SQL = `SELECT accounts.apply_fills($1::text[], $2::text[], $3::int8[], $4::int8[], $5::int4[],
  $6::int8[], $7::text[], $8::numeric[], $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[])`;

export const fillsLoader: StreamLoader = {
  stream: 'node_fills_by_block',
  loadBlock(ctx, events, batch) {
    const fills = events.map((e, i) => parseFill(e, ctx.blockNumber, i));
    for (const f of fills) {
      batch.add(fillsTable, f);
      batch.publish('fills', f);
      if (isPerpCoin(f.coin)) {
        batch.collect(ACCOUNT_STATE_SQL, [
          f.address,
          f.coin,
          f.time,
          f.block_number,
          f.event_index,
          f.tid,
          f.side,
          f.px,
          f.sz,
          f.start_position,
          f.closed_pnl,
          f.fee,
        ]);
      }
      const liquidation = liquidationOf(f);
      if (liquidation) {
        batch.add(liquidationsTable, liquidation);
        batch.publish('liquidations', liquidation);
      }
      const outcome = OUTCOME_COIN.exec(f.coin);
      if (outcome) {
        const n = Number(outcome[1]);
        const row = {
          block_number: f.block_number,
          time: f.time,
          address: f.address,
          coin: f.coin,
          outcome_id: Math.floor(n / 10),
          side_index: n % 10,
          px: f.px,
          sz: f.sz,
          side: f.side,
          dir: f.dir,
          closed_pnl: f.closed_pnl,
          hash: f.hash,
          oid: f.oid,
          tid: f.tid,
          fee: f.fee,
          fee_token: f.fee_token,
          crossed: f.crossed,
          is_settlement: f.dir === SETTLEMENT_DIR,
        };
        batch.add(hip4FillsTable, row);
        batch.publish('hip4Fills', row);
      }
    }
    // A settlement fill (an outcome holder paid out at settlement) has no counterparty: it is no trade.
    for (const t of pairTrades(fills.filter((f) => f.dir !== SETTLEMENT_DIR))) {
      batch.add(tradesTable, t);
      batch.publish('trades', t);
      if (isHip3Coin(t.coin)) batch.collect(HIP3_ROLLUP_SQL, [t.coin, t.time, t.px, t.sz, t.fees]);
    }
  },
};
