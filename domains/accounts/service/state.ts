// The latest perp account state of `/users/{user}/account` (spec §2.3 "Account state"), rebuilt from stored fills,
// funding payments and ledger updates, valued at the caller's mark prices. Exact decimal arithmetic throughout.
//
// Approximations (the node's clearinghouse is the truth; this is what stored history allows):
// - Perp coins only: no '/', '@' or '#' (spot and outcomes), and no ':' (HIP-3 dexes keep their own margin; spec
//   §8 says account_value covers the perp account only).
// - Position of a coin = end position of its latest fill (startPosition + sz for B, − sz for A). When several
//   fills share that timestamp, the one whose end is no other's start is the last executed.
// - Entry price = average cost since the position was last opened from flat or flipped: increases add px × sz,
//   reductions keep the average; when the data starts mid-position, the first fill's start is taken at its px.
// - Cash = ledger (deposit, withdraw [usdc taken to include its fee], internalTransfer [sender pays usdc + fee],
//   subAccountTransfer, accountClassTransfer, USDC `send` from/to the perp dex [fee ignored], vault deposits,
//   withdrawals, distributions, commissions) + Σ(closedPnl − fee) of perp fills + Σ funding. Events before the
//   ledger's coverage start (2025-09-27 09:29 UTC) are missing, so older accounts read low.
// - Leverage is not in the node's files: it is the user's current setting per coin as the node's clearinghouseState
//   reports it (`leverage`, `leverage_type`), and `roe` is unrealized PnL over the margin of the entry notional at
//   that leverage. When the node does not say (it is down, or reports no position for the coin), all three are
//   null. `funding` is the funding accrued since open, + = received.
// - No mark price from the caller → the last fill price of the coin.

import type pg from 'pg';
import type { FillRow } from '../../../db/rows/accounts.ts';
import {
  abs,
  add,
  cmp,
  div,
  isDecimal,
  mul,
  type Ratio,
  ratio,
  sign,
  sub,
  toDecimal,
  ZERO,
} from '../../../platform/decimal.ts';
import type { Address } from '../../../platform/fields.ts';
import { groupsOf } from '../../../platform/groups.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import { CASH_TYPES, ledgerCash, PERP_COIN } from './cash.ts';
import { fillOrder } from './wire-fill.ts';

export interface AccountPosition {
  coin: string;
  szi: string;
  side: 'long' | 'short';
  /** The user's leverage setting for the coin (from the node); null when unknown. */
  leverage: number | null;
  leverage_type: 'cross' | 'isolated' | null;
  entry_px: string;
  mark_px: string;
  position_value: string;
  unrealized_pnl: string;
  /** Unrealized PnL over the entry margin (entry notional / leverage); null when the leverage is unknown. */
  roe: string | null;
  /** Funding accrued since the position opened; + = received. */
  funding: string;
  /** When the position was opened (naive UTC ISO), null when that is before the stored history. */
  opened_at: string | null;
}

export interface AccountState {
  user: string;
  /** Naive UTC ISO time the state is valued at. */
  as_of: string;
  account_value: string;
  cash: string;
  position_value: string;
  unrealized_pnl: string;
  /** Open notional / account value; null when the account value is <= 0. */
  account_leverage: string | null;
  n_positions: number;
  perp_account_empty: boolean;
  positions: AccountPosition[];
}

/** A position's leverage setting, as the node's clearinghouseState gives it. */
export interface Leverage {
  type: 'cross' | 'isolated';
  value: number;
}

export interface AccountStateQuery {
  user: Address;
  markPx: (coin: string) => string | null;
  /**
   * The user's leverage per coin (a coin absent: unknown), or its promise, awaited beside the statements so that
   * asking the node costs no time of its own. Default: unknown for every coin.
   */
  leverage?: ReadonlyMap<string, Leverage> | Promise<ReadonlyMap<string, Leverage>>;
  now: number;
}

const MONEY_SCALE = 6;
const PRICE_SCALE = 8;

/**
 * Fractional digits an entry price is kept to while it is walked (at each increase: the average of the position and
 * the fill). Exact fractions grew by the digits of every increase between flips (1 000 digits for a market maker in
 * the scale bench, ~9 s to reduce); printed at PRICE_SCALE the price is the same.
 */
const ENTRY_SCALE = 30;
const atEntryScale = (r: Ratio) => ratio(toDecimal(r, ENTRY_SCALE));
const EXACT_SCALE = 12;

type PositionFill = Pick<FillRow, 'coin' | 'side' | 'px' | 'sz' | 'start_position' | 'time' | 'block_number'>;

const POSITION_FILL_COLUMNS = `f.coin, f.side, f.px::text AS px, f.sz::text AS sz,
  f.start_position::text AS start_position, f.time, f.block_number`;

function endOf(f: PositionFill): Ratio {
  const sz = ratio(f.sz);
  return add(ratio(f.start_position), f.side === 'B' ? sz : { n: -sz.n, d: sz.d });
}

/** The position after the last executed of fills sharing one timestamp. */
function finalPosition(group: PositionFill[]): Ratio {
  const starts = group.map((f) => ratio(f.start_position));
  const ends = group.map(endOf);
  const last = ends.filter((e) => !starts.some((s) => cmp(s, e) === 0));
  return last.length === 1 ? (last[0] as Ratio) : (ends.at(-1) ?? ZERO);
}

/** A position as the valuation needs it, from the derived rows or walked from the fills. */
interface HeldPosition {
  coin: string;
  szi: Ratio;
  /** The last fill's price: the mark when the caller has none. */
  lastPx: string;
  /** Average cost since open; null when the walk ends flat (the entry is then the mark). */
  entry: Ratio | null;
  funding: string;
  openedAt: number | null;
}

/**
 * The account state, from the rows ingest keeps as it stores fills, funding and ledger updates (migration 0028:
 * accounts.perp_cash, perp_positions): one row per coin the user has traded and the fills of each coin's last
 * timestamp. A coin whose walk a late row made stale is walked from its fills (until the accounts writer walks it
 * again, once no backfill loads behind the present), and a user the fill of older history has not reached yet is read
 * from the rows as before (accountStateFromRows).
 */
export async function accountState(pool: pg.Pool, q: AccountStateQuery): Promise<AccountState> {
  const { user } = q;
  const [leverage, kept, rows] = await Promise.all([
    q.leverage ?? new Map<string, Leverage>(),
    pool.query<{ cash: string | null; ready: boolean }>(
      `SELECT (SELECT cash::text FROM accounts.perp_cash WHERE address = $1) AS cash,
         NOT EXISTS (SELECT 1 FROM accounts.account_state_fill WHERE address IS NULL OR address < $1) AS ready`,
      [user],
    ),
    pool.query<
      PositionFill & {
        opened_at: number | null;
        pos: string;
        entry_n: string;
        entry_d: string;
        stale: boolean;
        funding: string;
      }
    >(
      `SELECT ${POSITION_FILL_COLUMNS}, p.opened_at, p.pos::text AS pos, p.entry_n::text AS entry_n,
         p.entry_d::text AS entry_d, p.stale, p.funding::text AS funding
       FROM accounts.perp_positions p
       JOIN accounts.fills f ON f.address = p.address AND f.coin = p.coin AND f.time = p.last_time
       WHERE p.address = $1
       ORDER BY f.coin, ${fillOrder()}`,
      [user],
    ),
  ]);
  if (!kept.rows[0]?.ready) return accountStateFromRows(pool, { ...q, leverage });
  const held: HeldPosition[] = [];
  for (const group of groupsOf(rows.rows, (f) => f.coin)) {
    const szi = finalPosition(group);
    if (sign(szi) === 0) continue;
    const last = group.at(-1) as (typeof group)[number];
    if (last.stale) {
      held.push({ ...(await walkFromFills(pool, user, last.coin)), coin: last.coin, szi, lastPx: last.px });
      continue;
    }
    const pos = ratio(last.pos);
    held.push({
      coin: last.coin,
      szi,
      lastPx: last.px,
      entry: sign(pos) === 0 ? null : div(ratio(last.entry_n), ratio(last.entry_d)),
      funding: last.funding,
      openedAt: last.opened_at,
    });
  }
  return valued(user, q, ratio(kept.rows[0].cash ?? '0'), held, leverage);
}

/** The account state summed and walked from every stored row of the user: what the derived rows must equal. */
export async function accountStateFromRows(pool: pg.Pool, q: AccountStateQuery): Promise<AccountState> {
  const { user } = q;
  const [leverage, latest, realized, funding, ledger] = await Promise.all([
    q.leverage ?? new Map<string, Leverage>(),
    pool.query<PositionFill>(
      `SELECT ${POSITION_FILL_COLUMNS} FROM accounts.fills f
       JOIN (SELECT coin, max(time) AS t FROM accounts.fills WHERE address = $1 AND ${PERP_COIN} GROUP BY coin) l
         ON l.coin = f.coin AND l.t = f.time
       WHERE f.address = $1
       ORDER BY f.coin, ${fillOrder()}`,
      [user],
    ),
    pool.query<{ v: string }>(
      `SELECT coalesce(sum(closed_pnl - fee), 0)::text AS v FROM accounts.fills WHERE address = $1 AND ${PERP_COIN}`,
      [user],
    ),
    pool.query<{ v: string }>(
      `SELECT coalesce(sum(usdc), 0)::text AS v FROM accounts.funding_payments WHERE address = $1 AND ${PERP_COIN}`,
      [user],
    ),
    pool.query<{ delta_type: string; delta: Record<string, unknown> }>(
      `SELECT delta_type, delta FROM accounts.ledger_updates WHERE address = $1 AND delta_type = ANY($2)`,
      [user, CASH_TYPES],
    ),
  ]);

  let cash = add(ratio(realized.rows[0]?.v ?? '0'), ratio(funding.rows[0]?.v ?? '0'));
  for (const r of ledger.rows) cash = add(cash, ledgerCash(user, r.delta_type, r.delta));

  const held: HeldPosition[] = [];
  for (const group of groupsOf(latest.rows, (f) => f.coin)) {
    const szi = finalPosition(group);
    if (sign(szi) === 0) continue;
    const last = group.at(-1) as PositionFill;
    held.push({ ...(await walkFromFills(pool, user, last.coin)), coin: last.coin, szi, lastPx: last.px });
  }
  return valued(user, q, cash, held, leverage);
}

/** The account valued at the caller's marks. */
function valued(
  user: string,
  q: AccountStateQuery,
  cash: Ratio,
  held: HeldPosition[],
  leverage: ReadonlyMap<string, Leverage>,
): AccountState {
  const positions: AccountPosition[] = [];
  let unrealizedTotal = ZERO;
  let notionalTotal = ZERO;
  for (const h of held) {
    const quoted = q.markPx(h.coin);
    const mark = ratio(isDecimal(quoted) ? quoted : h.lastPx);
    const p = positionView(h, mark, leverage.get(h.coin) ?? null);
    unrealizedTotal = add(unrealizedTotal, p.unrealized);
    notionalTotal = add(notionalTotal, p.notional);
    positions.push(p.view);
  }

  if (!positions.length && sign(cash) === 0) {
    return {
      user,
      as_of: naiveIso(q.now),
      account_value: '0',
      cash: '0',
      position_value: '0',
      unrealized_pnl: '0',
      account_leverage: null,
      n_positions: 0,
      perp_account_empty: true,
      positions: [],
    };
  }
  const accountValue = add(cash, unrealizedTotal);
  return {
    user,
    as_of: naiveIso(q.now),
    account_value: toDecimal(accountValue, MONEY_SCALE),
    cash: toDecimal(cash, EXACT_SCALE),
    position_value: toDecimal(notionalTotal, MONEY_SCALE),
    unrealized_pnl: toDecimal(unrealizedTotal, MONEY_SCALE),
    account_leverage: sign(accountValue) > 0 ? toDecimal(div(notionalTotal, accountValue), MONEY_SCALE) : null,
    n_positions: positions.length,
    perp_account_empty: false,
    positions,
  };
}

/** Unrealized PnL over the entry margin (entry notional / leverage); null when the leverage is unknown. */
function roeOf(unrealized: Ratio, entryNotional: Ratio, leverage: Leverage | null): string | null {
  if (leverage === null) return null;
  if (sign(entryNotional) === 0) return '0.0';
  return toDecimal(div(mul(unrealized, ratio(String(leverage.value))), entryNotional), MONEY_SCALE);
}

/** Entry price (average cost since open), funding since open and when it opened, walked from the coin's fills. */
async function walkFromFills(
  pool: pg.Pool,
  user: string,
  coin: string,
): Promise<Pick<HeldPosition, 'entry' | 'funding' | 'openedAt'>> {
  // The latest fill that opened the position from flat or flipped it.
  const { rows: opened } = await pool.query<{ t: number | null }>(
    `SELECT max(time) AS t FROM accounts.fills
     WHERE address = $1 AND coin = $2
       AND sign(start_position + CASE WHEN side = 'B' THEN sz ELSE -sz END) NOT IN (0, sign(start_position))`,
    [user, coin],
  );
  const openedAt = opened[0]?.t ?? null;
  const [{ rows: fills }, { rows: fund }] = await Promise.all([
    pool.query<PositionFill>(
      `SELECT ${POSITION_FILL_COLUMNS} FROM accounts.fills f
       WHERE f.address = $1 AND f.coin = $2 AND ($3::bigint IS NULL OR f.time >= $3)
       ORDER BY ${fillOrder(false)}`,
      [user, coin, openedAt],
    ),
    pool.query<{ v: string }>(
      `SELECT coalesce(sum(usdc), 0)::text AS v FROM accounts.funding_payments
       WHERE address = $1 AND coin = $2 AND ($3::bigint IS NULL OR time >= $3)`,
      [user, coin, openedAt],
    ),
  ]);

  // The average price since open, rounded to ENTRY_SCALE at each increase; a reduction keeps it. (Migration 0052's
  // accounts.position_step walks the same way, for the positions kept as rows arrive.)
  let pos = ZERO;
  let entry = ZERO;
  for (const f of fills) {
    const px = ratio(f.px);
    const start = ratio(f.start_position);
    const end = endOf(f);
    if (sign(end) === 0) entry = ZERO;
    else if (sign(start) === 0 || sign(start) !== sign(end)) entry = px;
    else {
      // Fills missing before this one (history starting mid-position): the first fill's start taken at its price.
      if (cmp(pos, start) !== 0 && sign(pos) === 0) entry = px;
      if (cmp(abs(end), abs(start)) > 0)
        entry = atEntryScale(div(add(mul(entry, abs(start)), mul(px, ratio(f.sz))), abs(end)));
    }
    pos = end;
  }
  return { entry: sign(pos) === 0 ? null : entry, funding: fund[0]?.v ?? '0', openedAt };
}

/** One open position valued at `mark`. */
function positionView(
  h: HeldPosition,
  mark: Ratio,
  leverage: Leverage | null,
): { view: AccountPosition; unrealized: Ratio; notional: Ratio } {
  const { szi } = h;
  const entry = h.entry ?? mark;
  const size = abs(szi);
  const unrealized = mul(sub(mark, entry), szi);
  const notional = mul(size, mark);
  const entryNotional = mul(size, entry);
  return {
    unrealized,
    notional,
    view: {
      coin: h.coin,
      szi: toDecimal(szi, EXACT_SCALE),
      side: sign(szi) > 0 ? 'long' : 'short',
      leverage: leverage?.value ?? null,
      leverage_type: leverage?.type ?? null,
      entry_px: toDecimal(entry, PRICE_SCALE),
      mark_px: toDecimal(mark, EXACT_SCALE),
      position_value: toDecimal(notional, MONEY_SCALE),
      unrealized_pnl: toDecimal(unrealized, MONEY_SCALE),
      roe: roeOf(unrealized, entryNotional, leverage),
      funding: toDecimal(ratio(h.funding), EXACT_SCALE),
      opened_at: h.openedAt === null ? null : naiveIso(h.openedAt),
    },
  };
}
