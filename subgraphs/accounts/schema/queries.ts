// The two reads the accounts service does not offer yet: every status row of some orders (OrderStatus.statusHistory)
// and the stored liquidations of one user (User.liquidations). Plain parameterised SQL over the accounts schema,
// kept out of the type files; each belongs beside its kin in service/orders.ts and service/liquidations.ts.
import type pg from 'pg';
import { type LiquidationRow, liquidationsTable, type OrderStatusRow, orderStatusesTable } from '../../../db/rows.ts';
import { type HistoricalOrder, toOrder } from '../service/orders.ts';

/** An order status row and the user it belongs to (its status history is looked up by both). */
export interface UserOrderStatus extends HistoricalOrder {
  user: string;
}

/** Key of one user's order, as statusHistories takes it. */
export const orderKey = (s: UserOrderStatus) => `${s.user} ${s.order.oid}`;

/** Every status row of the given orders (`orderKey`s), oldest first; equal times in lifecycle order. */
export async function statusHistories(pool: pg.Pool, keys: readonly string[]): Promise<UserOrderStatus[]> {
  const pairs = keys.map((k) => k.split(' '));
  const { rows } = await pool.query<OrderStatusRow>(
    `SELECT ${orderStatusesTable.columns.map((c) => `s.${c}`).join(', ')}
     FROM accounts.order_statuses s
     JOIN unnest($1::text[], $2::bigint[]) AS k(address, oid) ON s.address = k.address AND s.oid = k.oid
     ORDER BY s.time, s.block_number, CASE s.status WHEN 'open' THEN 0 WHEN 'triggered' THEN 1 ELSE 2 END`,
    [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
  );
  return rows.map((r) => ({ ...toOrder(r), user: r.address }));
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
