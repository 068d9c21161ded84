// Liquidations: the subscription filter of spec §6 (user, users, amount_dollars, builder, all combined) as a
// predicate over stored/live rows, the exchange's liquidation event shape, and a user's stored liquidations.

import type pg from 'pg';
import { type LedgerUpdateRow, type LiquidationRow, liquidationsTable } from '../../../db/rows/accounts.ts';
import type { EventBus } from '../../../events/bus.ts';
import { compareDecimal } from '../../../platform/decimal.ts';
import type { Address } from '../../../platform/fields.ts';
import { decimalOf } from './shared.ts';

export const MAX_LIQUIDATION_USERS = 50;

export interface LiquidationFilter {
  /** Matches the liquidated user or the liquidator. */
  user?: Address;
  /** Up to 50 addresses; each matches the liquidated user or the liquidator. */
  users?: readonly Address[];
  /** Minimum notional (px × sz of the liquidation fill), in dollars. */
  amountDollars?: number | string;
  /** The builder of the liquidation fill. */
  builder?: Address;
}

/** The exchange's liquidation event (userEvents `{liquidation}`). */
export interface WsLiquidation {
  lid: number;
  liquidator: string;
  liquidated_user: string;
  liquidated_ntl_pos: string;
  liquidated_account_value: string;
}

/** A predicate accepting the rows every given filter accepts (no filter: every row). */
export function liquidationsMatching(filter: LiquidationFilter): (row: LiquidationRow) => boolean {
  const { user, builder } = filter;
  const users = filter.users ? new Set<string>(filter.users) : null;
  const min = filter.amountDollars === undefined ? null : decimalOf(filter.amountDollars);
  return (row) => {
    const liquidated = row.liquidated_user.toLowerCase();
    const liquidator = row.liquidator.toLowerCase();
    if (user !== undefined && liquidated !== user && liquidator !== user) return false;
    if (users && !users.has(liquidated) && !users.has(liquidator)) return false;
    if (min !== null && compareDecimal(row.notional, min) < 0) return false;
    if (builder !== undefined && row.builder?.toLowerCase() !== builder) return false;
    return true;
  };
}

/**
 * The event for one liquidation fill, `lid` its trade id (the same liquidation has the same id on every channel and
 * subscription). The account value comes from the ledger's liquidation update: "0.0" when it is not known.
 */
export function toWsLiquidation(row: LiquidationRow): WsLiquidation {
  return {
    lid: row.tid,
    liquidator: row.liquidator,
    liquidated_user: row.liquidated_user,
    liquidated_ntl_pos: row.notional,
    liquidated_account_value: row.account_value ?? '0.0',
  };
}

/** The `limit` most recent liquidations in which `user` was liquidated or the liquidator, with the account value. */
export async function liquidationsOf(pool: pg.Pool, user: string, limit: number): Promise<LiquidationRow[]> {
  const columns = liquidationsTable.columns.map((c) => `l.${c}`).join(', ');
  const side = (who: string) =>
    `(SELECT ${columns} FROM accounts.liquidations l WHERE l.${who} = $1 ORDER BY l.time DESC, l.tid DESC LIMIT $2)`;
  const { rows } = await pool.query<LiquidationRow>(
    `SELECT l.*, u.delta->>'accountValue' AS account_value
     FROM (${side('liquidated_user')} UNION ${side('liquidator')}) l
     LEFT JOIN LATERAL (
       SELECT delta FROM accounts.ledger_updates u
       WHERE u.address = l.liquidated_user AND u.time = l.time AND u.hash = l.hash AND u.delta_type = 'liquidation'
       LIMIT 1
     ) u ON true
     ORDER BY l.time DESC, l.tid DESC LIMIT $2`,
    [user, limit],
  );
  return rows;
}

/** The ledger update's account value, when it is a liquidation update carrying one. */
function liquidationAccountValue(r: LedgerUpdateRow): string | null {
  const value = r.delta_type === 'liquidation' ? (r.delta as { accountValue?: unknown }).accountValue : undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * Live liquidation fills joined with the ledger's liquidation update of the same transaction, whose `accountValue`
 * the exchange prints as liquidated_account_value. Ingest reads the fills and the ledger from two streams, so
 * either may come first: each batch of fills waits for its updates at most `graceMs`, then goes on with what is known.
 * Batches are handed on whole, in the order they came, with the bus `seq` they came with (a subscriber's cursor).
 */
export class LiquidationJoin {
  /** `liquidated user + hash` → account value, with when it was seen (insertion order = age). */
  private readonly values = new Map<string, { value: string; seen: number }>();
  private readonly waiting: { rows: readonly LiquidationRow[]; seq: number; due: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly offs: (() => void)[];

  constructor(
    source: EventBus,
    private readonly deliver: (rows: LiquidationRow[], seq: number) => void,
    private readonly graceMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.offs = [
      source.subscribe('ledgerUpdates', (rows) => {
        let found = false;
        for (const r of rows) {
          const value = liquidationAccountValue(r);
          if (value === null) continue;
          const key = `${r.address} ${r.hash}`;
          this.values.delete(key); // re-inserted at the end: insertion order stays age order
          this.values.set(key, { value, seen: this.now() });
          found = true;
        }
        if (!found) return;
        if (this.waiting.length) this.release();
        else this.forgetOld();
      }),
      source.subscribe('liquidations', (rows, seq) => {
        this.waiting.push({ rows, seq, due: this.now() + this.graceMs });
        this.release();
      }),
    ];
  }

  /** Every batch up to this seq has been handed on (the source's position, less what waits). */
  position(sourcePosition: number): number {
    const first = this.waiting[0];
    return first ? first.seq - 1 : sourcePosition;
  }

  /** A fill with the account value known for it now (null when none is). */
  joined(row: LiquidationRow): LiquidationRow {
    return { ...row, account_value: this.values.get(`${row.liquidated_user} ${row.hash}`)?.value ?? null };
  }

  private release(): void {
    const now = this.now();
    const ready: { rows: LiquidationRow[]; seq: number }[] = [];
    for (let head = this.waiting[0]; head; head = this.waiting[0]) {
      const complete = head.rows.every((r) => this.values.has(`${r.liquidated_user} ${r.hash}`));
      if (!complete && head.due > now) break;
      this.waiting.shift();
      ready.push({ rows: head.rows.map((r) => this.joined(r)), seq: head.seq });
    }
    this.forgetOld();
    clearTimeout(this.timer);
    const next = this.waiting[0];
    this.timer = next ? setTimeout(() => this.release(), Math.max(0, next.due - now)) : undefined;
    for (const batch of ready) this.deliver(batch.rows, batch.seq);
  }

  /** Updates seen over a minute ago have met their fills, or their fills are not coming. */
  private forgetOld(): void {
    const now = this.now();
    for (const [key, { seen }] of this.values) {
      if (now - seen < 60_000) break;
      this.values.delete(key);
    }
  }

  stop(): void {
    for (const off of this.offs) off();
    clearTimeout(this.timer);
  }
}
