// The per-user channels of /ws, in the exchange's shapes: userFills, userFundings and userNonFundingLedgerUpdates
// (a snapshot from storage marked `isSnapshot: true`, then live frames), userEvents (channel "user"),
// orderUpdates, and the service's own liquidations channel with its filters.
import type { FillRow, LedgerUpdateRow, OrderStatusRow } from '../../db/rows.ts';
import { aggregateFillsByTime, toWireFill, userFills } from '../../subgraphs/accounts/service/fills.ts';
import { recentFundings, toWsFunding } from '../../subgraphs/accounts/service/funding.ts';
import type { AccountsService } from '../../subgraphs/accounts/service/index.ts';
import { recentLedgerUpdates } from '../../subgraphs/accounts/service/ledger.ts';
import {
  liquidationsMatching,
  MAX_LIQUIDATION_USERS,
  toWsLiquidation,
} from '../../subgraphs/accounts/service/liquidations.ts';
import { type Channel, type ChannelContext, SubscriptionError } from '../ws/protocol.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function userParam(sub: Record<string, unknown>, key = 'user'): string {
  const v = sub[key];
  if (typeof v !== 'string' || !ADDRESS.test(v)) throw new SubscriptionError(`${key}: must be a 0x address`);
  return v.toLowerCase();
}

const wsLedger = (r: LedgerUpdateRow) => ({ time: r.time, hash: r.hash, delta: r.delta });

/** The exchange's OpenOrder (orderUpdates): the basic order fields, `reduceOnly` only when true. */
const openOrder = (r: OrderStatusRow) => ({
  coin: r.coin,
  side: r.side,
  limitPx: r.limit_px,
  sz: r.sz,
  oid: r.oid,
  timestamp: r.order_time,
  origSz: r.orig_sz,
  ...(r.cloid ? { cloid: r.cloid } : {}),
  ...(r.reduce_only ? { reduceOnly: true as const } : {}),
});

/** Statuses by which the exchange, not the user, cancelled an order. */
const isNonUserCancel = (status: string) => status !== 'canceled' && /Canceled$/.test(status);

/** A per-user channel: normalise `user`, then a storage snapshot and live frames, or live frames only. */
function userChannel(
  type: string,
  start: (user: string, sub: Record<string, unknown>, ctx: ChannelContext) => (() => void) | Promise<() => void>,
  extra: Partial<Channel> = {},
): Channel {
  return {
    type,
    normalize: (sub) => ({ ...sub, user: userParam(sub) }),
    start: (sub, ctx) => start(sub.user as string, sub, ctx),
    ...extra,
  };
}

export function accountChannels(accounts: AccountsService): Channel[] {
  const { bus, pool } = accounts;
  return [
    userChannel(
      'userFills',
      async (user, sub, ctx) => {
        const aggregate = sub.aggregateByTime === true;
        const shape = (rows: readonly FillRow[]) => {
          const fills = rows.map(toWireFill);
          return aggregate ? aggregateFillsByTime(fills) : fills;
        };
        // Subscribe first so nothing falls between the snapshot and the live frames.
        const pending: FillRow[] = [];
        let live = false;
        const off = bus.subscribe('fills', (rows) => {
          const mine = rows.filter((f) => f.address === user);
          if (!mine.length) return;
          if (live) ctx.send({ user, fills: shape(mine) });
          else pending.push(...mine);
        });
        const snapshot = await userFills(pool, { user, aggregateByTime: aggregate });
        ctx.send({ user, fills: snapshot, isSnapshot: true });
        const seen = new Set(snapshot.map((f) => `${f.tid} ${f.oid}`));
        const missed = pending.filter((f) => !seen.has(`${f.tid} ${f.oid}`));
        if (missed.length) ctx.send({ user, fills: shape(missed) });
        live = true;
        return off;
      },
      { normalize: (sub) => ({ ...sub, user: userParam(sub), aggregateByTime: sub.aggregateByTime ?? false }) },
    ),
    userChannel('userFundings', async (user, _sub, ctx) => {
      const off = bus.subscribe('fundingPayments', (rows) => {
        const mine = rows.filter((r) => r.address === user);
        if (mine.length) ctx.send({ user, fundings: mine.map(toWsFunding) });
      });
      ctx.send({ user, fundings: await recentFundings(pool, user, 100), isSnapshot: true });
      return off;
    }),
    userChannel('userNonFundingLedgerUpdates', async (user, _sub, ctx) => {
      const off = bus.subscribe('ledgerUpdates', (rows) => {
        const mine = rows.filter((r) => r.address === user);
        if (mine.length) ctx.send({ user, nonFundingLedgerUpdates: mine.map(wsLedger) });
      });
      ctx.send({ user, nonFundingLedgerUpdates: await recentLedgerUpdates(pool, user, 100), isSnapshot: true });
      return off;
    }),
    userChannel(
      'userEvents',
      (user, _sub, ctx) => {
        let lid = 0;
        const offs = [
          bus.subscribe('fills', (rows) => {
            const mine = rows.filter((f) => f.address === user);
            if (mine.length) ctx.send({ fills: mine.map(toWireFill) });
          }),
          // One frame per payment.
          bus.subscribe('fundingPayments', (rows) => {
            for (const r of rows) if (r.address === user) ctx.send({ funding: toWsFunding(r) });
          }),
          bus.subscribe('liquidations', (rows) => {
            for (const r of rows) {
              if (r.liquidated_user === user || r.liquidator === user)
                ctx.send({ liquidation: toWsLiquidation(r, ++lid) });
            }
          }),
          bus.subscribe('orderStatuses', (rows) => {
            const cancels = rows.filter((r) => r.address === user && isNonUserCancel(r.status));
            if (cancels.length) ctx.send({ nonUserCancel: cancels.map((r) => ({ coin: r.coin, oid: r.oid })) });
          }),
        ];
        return () => {
          for (const off of offs) off();
        };
      },
      { channelName: () => 'user' },
    ),
    userChannel('orderUpdates', (user, _sub, ctx) =>
      bus.subscribe('orderStatuses', (rows) => {
        const mine = rows.filter((r) => r.address === user);
        if (mine.length) {
          ctx.send(mine.map((r) => ({ order: openOrder(r), status: r.status, statusTimestamp: r.time })));
        }
      }),
    ),
    {
      type: 'liquidations',
      normalize: (sub) => {
        const out: Record<string, unknown> = { ...sub };
        if (sub.user !== undefined) out.user = userParam(sub);
        if (sub.users !== undefined) {
          if (!Array.isArray(sub.users) || sub.users.length > MAX_LIQUIDATION_USERS) {
            throw new SubscriptionError(`users: must be an array of at most ${MAX_LIQUIDATION_USERS} addresses`);
          }
          out.users = sub.users.map((u: unknown) => userParam({ u }, 'u'));
        }
        if (sub.amount_dollars !== undefined && !(typeof sub.amount_dollars === 'number' && sub.amount_dollars >= 0)) {
          throw new SubscriptionError('amount_dollars: must be a number >= 0');
        }
        if (sub.builder !== undefined) out.builder = userParam(sub, 'builder');
        return out;
      },
      start(sub, ctx) {
        const matches = liquidationsMatching({
          user: sub.user as string | undefined,
          users: sub.users as string[] | undefined,
          amountDollars: sub.amount_dollars as number | undefined,
          builder: sub.builder as string | undefined,
        });
        let lid = 0;
        return bus.subscribe('liquidations', (rows) => {
          const mine = rows.filter(matches);
          if (mine.length)
            ctx.send(
              mine.map((r) => ({ ...toWsLiquidation(r, ++lid), coin: r.coin, px: r.px, sz: r.sz, time: r.time })),
            );
        });
      },
    },
  ];
}
