// The per-user channels of /ws, in the exchange's shapes: userFills, userFundings and userNonFundingLedgerUpdates
// (a snapshot from storage marked `isSnapshot: true`, then live frames), userEvents (channel "user"),
// orderUpdates, and the service's own liquidations channel with its filters.
import type { LedgerUpdateRow, OrderStatusRow } from '../../db/rows/accounts.ts';
import { isDecimal } from '../../platform/decimal.ts';
import { sortedJson } from '../../platform/json-text.ts';
import { aggregateFillsByTime, toWireFill, type WireFill } from '../../subgraphs/accounts/service/fills.ts';
import { toWsFunding, type WsFunding } from '../../subgraphs/accounts/service/funding.ts';
import type { AccountsService } from '../../subgraphs/accounts/service/index.ts';
import type { LedgerUpdate } from '../../subgraphs/accounts/service/ledger.ts';
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

// Every stored delta carries the node's `type` tag (the ingest keys the row's delta_type on it).
const wsLedger = (r: LedgerUpdateRow): LedgerUpdate => ({
  time: r.time,
  hash: r.hash,
  delta: r.delta as LedgerUpdate['delta'],
});

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

/** A minimum amount as a JSON number or, as GraphQL takes it, a decimal string; not negative. */
const isNonNegative = (v: unknown) =>
  (typeof v === 'number' && Number.isFinite(v) && v >= 0) || (isDecimal(v) && !v.startsWith('-'));

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

/**
 * A snapshot from storage, then live items, with nothing lost or sent twice between them: the bus is followed
 * before the snapshot is read, what arrives meanwhile is held back and sent after the snapshot, less what the
 * snapshot already holds (same `key`). If the snapshot cannot be read, the bus is left again.
 */
async function snapshotThenLive<I>(opts: {
  follow: (onItems: (items: I[]) => void) => () => void;
  snapshot: () => Promise<I[]>;
  key: (item: I) => string;
  send: (items: I[], isSnapshot: boolean) => void;
}): Promise<() => void> {
  let pending: I[] | null = [];
  const off = opts.follow((items) => {
    if (!items.length) return;
    if (pending) pending.push(...items);
    else opts.send(items, false);
  });
  try {
    const snapshot = await opts.snapshot();
    opts.send(snapshot, true);
    const seen = new Set(snapshot.map(opts.key));
    const missed = pending.filter((item) => !seen.has(opts.key(item)));
    pending = null;
    if (missed.length) opts.send(missed, false);
    return off;
  } catch (err) {
    off();
    throw err;
  }
}

/** The snapshot size of userFundings and userNonFundingLedgerUpdates (spec §8). */
const SNAPSHOT_SIZE = 100;

export function accountChannels(accounts: AccountsService): Channel[] {
  const { bus } = accounts;
  const snapshotFlag = (isSnapshot: boolean) => (isSnapshot ? { isSnapshot: true as const } : {});
  return [
    userChannel(
      'userFills',
      (user, sub, ctx) => {
        const aggregate = sub.aggregateByTime === true;
        return snapshotThenLive<WireFill>({
          follow: (on) => bus.subscribe('fills', (rows) => on(rows.filter((f) => f.address === user).map(toWireFill))),
          // Aggregated by the query itself, which fetches the whole group at the cut.
          snapshot: () => accounts.userFills({ user, aggregateByTime: aggregate }),
          // An aggregated snapshot fill keeps only its first part's tid: match its parts by order and time instead
          // (the parts of one crossing order share both, and are stored in one block).
          key: aggregate ? (f) => `${f.oid} ${f.time}` : (f) => `${f.tid} ${f.oid}`,
          send: (fills, isSnapshot) =>
            ctx.send({
              user,
              fills: aggregate && !isSnapshot ? aggregateFillsByTime(fills) : fills,
              ...snapshotFlag(isSnapshot),
            }),
        });
      },
      { normalize: (sub) => ({ ...sub, user: userParam(sub), aggregateByTime: sub.aggregateByTime ?? false }) },
    ),
    userChannel('userFundings', (user, _sub, ctx) =>
      snapshotThenLive<WsFunding>({
        follow: (on) =>
          bus.subscribe('fundingPayments', (rows) => on(rows.filter((r) => r.address === user).map(toWsFunding))),
        snapshot: () => accounts.recentFundings(user, SNAPSHOT_SIZE),
        // One payment per user, coin and settlement.
        key: (f) => `${f.time} ${f.coin}`,
        send: (fundings, isSnapshot) => ctx.send({ user, fundings, ...snapshotFlag(isSnapshot) }),
      }),
    ),
    userChannel('userNonFundingLedgerUpdates', (user, _sub, ctx) =>
      snapshotThenLive<LedgerUpdate>({
        follow: (on) =>
          bus.subscribe('ledgerUpdates', (rows) => on(rows.filter((r) => r.address === user).map(wsLedger))),
        snapshot: () => accounts.recentLedgerUpdates(user, SNAPSHOT_SIZE),
        // Stored deltas come back from jsonb with their keys reordered: compare them with keys sorted.
        key: (u) => `${u.time} ${u.hash} ${sortedJson(u.delta)}`,
        send: (nonFundingLedgerUpdates, isSnapshot) =>
          ctx.send({ user, nonFundingLedgerUpdates, ...snapshotFlag(isSnapshot) }),
      }),
    ),
    userChannel(
      'userEvents',
      (user, _sub, ctx) => {
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
              if (r.liquidated_user === user || r.liquidator === user) ctx.send({ liquidation: toWsLiquidation(r) });
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
          out.users = sub.users.map((u: unknown, i) => userParam({ [`users[${i}]`]: u }, `users[${i}]`));
        }
        const amount = sub.amount_dollars;
        if (amount !== undefined && !isNonNegative(amount)) {
          throw new SubscriptionError('amount_dollars: must be a number or a decimal string >= 0');
        }
        if (sub.builder !== undefined) out.builder = userParam(sub, 'builder');
        return out;
      },
      start(sub, ctx) {
        const matches = liquidationsMatching({
          user: sub.user as string | undefined,
          users: sub.users as string[] | undefined,
          amountDollars: sub.amount_dollars as number | string | undefined,
          builder: sub.builder as string | undefined,
        });
        return bus.subscribe('liquidations', (rows) => {
          const mine = rows.filter(matches);
          if (mine.length)
            ctx.send(mine.map((r) => ({ ...toWsLiquidation(r), coin: r.coin, px: r.px, sz: r.sz, time: r.time })));
        });
      },
    },
  ];
}
