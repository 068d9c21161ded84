// TWAPs: a user's stored TWAP statuses (twapHistory: node_twap_statuses, one row per status change) in the exchange's
// shape (hyperliquid-wire.md §2.7), and the fills of its slices (userTwapSliceFills).

import type pg from 'pg';
import type { TwapStatusRow } from '../../../db/rows/accounts.ts';
import type { Address } from '../../../platform/fields.ts';
import type { TwapState } from '../../../wire/node-lines.ts';
import { toWireFill, WIRE_FILL_COLUMNS, type WireFill, type WireFillSource } from './fill-fields.ts';
import { fillPage } from './fill-pages.ts';
import { MAX_WIRE_FILLS } from './fills.ts';

/** The most records one answer holds: the newest this many. */
export const MAX_TWAP_HISTORY = 2000;

/** The TWAP's parameters and progress at the status change: the node's `state` (user lowercase). */
export type { TwapState };

/** One stored status change of a TWAP: `time` epoch ms; `status` activated | finished | terminated | error. */
export interface TwapStatusChange {
  time: number;
  twapId: number;
  state: TwapState;
  status: string;
  /** The node's message when `status` is error. */
  error: string | null;
}

/**
 * One twapHistory record as the exchange writes it: `time` in seconds (unlike every other time it prints); the
 * state's newer `stopPx` and `trigger` null (unset), as the node's status lines do not carry them.
 */
export interface TwapHistoryItem {
  time: number;
  state: TwapState & { stopPx: null; trigger: null };
  status: { status: string } | { status: 'error'; description: string };
  twapId: number;
}

export function toTwapHistoryItem(c: TwapStatusChange): TwapHistoryItem {
  return {
    time: Math.floor(c.time / 1000),
    state: { ...c.state, stopPx: null, trigger: null },
    status: c.status === 'error' ? { status: 'error', description: c.error ?? '' } : { status: c.status },
    twapId: c.twapId,
  };
}

type StoredStatus = Omit<TwapStatusRow, 'block_number'>;

function toStatusChange(r: StoredStatus): TwapStatusChange {
  return {
    time: Number(r.time),
    twapId: Number(r.twap_id),
    state: {
      coin: r.coin,
      user: r.address,
      side: r.side,
      sz: r.sz,
      executedSz: r.executed_sz,
      executedNtl: r.executed_ntl,
      minutes: r.minutes,
      reduceOnly: r.reduce_only,
      randomize: r.randomize,
      timestamp: Number(r.started_at),
    },
    status: r.status,
    error: r.error,
  };
}

/** A user's TWAP status changes, oldest first: the newest MAX_TWAP_HISTORY of them. */
export async function twapHistory(pool: pg.Pool, user: Address): Promise<TwapStatusChange[]> {
  const { rows } = await pool.query<StoredStatus>(
    `SELECT * FROM (
       SELECT time, twap_id, address, coin, side, sz::text AS sz, executed_sz::text AS executed_sz,
              executed_ntl::text AS executed_ntl, minutes, reduce_only, randomize, started_at, status, error,
              block_number
       FROM accounts.twap_statuses WHERE address = $1
       ORDER BY time DESC, block_number DESC, twap_id DESC LIMIT $2
     ) newest ORDER BY time, block_number, twap_id`,
    [user, MAX_TWAP_HISTORY],
  );
  return rows.map(toStatusChange);
}

// ---- slice fills ----

export interface TwapSliceFill {
  fill: Omit<WireFill, 'cloid' | 'liquidation'>;
  twapId: number;
}

export interface TwapSliceFillsQuery {
  user: Address;
  /** Only the slices of this TWAP. */
  twapId?: number;
  /** Inclusive epoch-ms bounds on the fill time. */
  startTime?: number;
  endTime?: number;
}

/** userTwapSliceFills: the user's TWAP slice fills, newest first, at most 2000: a page of fillPage, the one read path. */
export async function twapSliceFills(pool: pg.Pool, q: TwapSliceFillsQuery): Promise<TwapSliceFill[]> {
  const page = await fillPage(
    pool,
    {
      user: q.user,
      twap: { id: q.twapId },
      startTime: q.startTime,
      endTime: q.endTime,
      order: 'desc',
      limit: MAX_WIRE_FILLS,
      includeOrderType: false,
    },
    { maxLimit: MAX_WIRE_FILLS, columns: WIRE_FILL_COLUMNS },
  );
  return page.rows.map((r) => {
    const { cloid: _c, liquidation: _l, ...fill } = toWireFill(r as WireFillSource);
    return { fill, twapId: r.twap_id as number };
  });
}
