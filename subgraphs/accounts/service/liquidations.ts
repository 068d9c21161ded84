// Liquidations: the subscription filter of spec §6 (user, users, amount_dollars, builder, all combined) as a
// predicate over stored/live rows, the exchange's liquidation event shape, and a user's stored liquidations.
import type pg from 'pg';
import { type LiquidationRow, liquidationsTable } from '../../../db/rows.ts';
import { compareDecimal } from '../../../platform/decimal.ts';
import { decimalOf, InvalidQueryError } from './shared.ts';

export const MAX_LIQUIDATION_USERS = 50;

export interface LiquidationFilter {
  /** Matches the liquidated user or the liquidator. */
  user?: string;
  /** Up to 50 addresses; each matches the liquidated user or the liquidator. */
  users?: readonly string[];
  /** Minimum notional (px × sz of the liquidation fill), in dollars. */
  amountDollars?: number | string;
  /** The builder of the liquidation fill. */
  builder?: string;
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
  if (filter.users && filter.users.length > MAX_LIQUIDATION_USERS) {
    throw new InvalidQueryError(`users: at most ${MAX_LIQUIDATION_USERS} addresses`);
  }
  const user = filter.user?.toLowerCase();
  const users = filter.users ? new Set(filter.users.map((u) => u.toLowerCase())) : null;
  const min = filter.amountDollars === undefined ? null : decimalOf(filter.amountDollars);
  const builder = filter.builder?.toLowerCase();
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
 * subscription). The liquidated account's value is not in the fill: "0.0" unless known.
 */
export function toWsLiquidation(row: LiquidationRow, accountValue?: string | null): WsLiquidation {
  return {
    lid: row.tid,
    liquidator: row.liquidator,
    liquidated_user: row.liquidated_user,
    liquidated_ntl_pos: row.notional,
    liquidated_account_value: accountValue ?? '0.0',
  };
}

/** The `limit` most recent liquidations in which `user` was liquidated or the liquidator. */
export async function liquidationsOf(pool: pg.Pool, user: string, limit: number): Promise<LiquidationRow[]> {
  const columns = liquidationsTable.columns.join(', ');
  const side = (who: string) =>
    `(SELECT ${columns} FROM accounts.liquidations WHERE ${who} = $1 ORDER BY time DESC, tid DESC LIMIT $2)`;
  const { rows } = await pool.query<LiquidationRow>(
    `${side('liquidated_user')} UNION ${side('liquidator')} ORDER BY time DESC, tid DESC LIMIT $2`,
    [user, limit],
  );
  return rows;
}
