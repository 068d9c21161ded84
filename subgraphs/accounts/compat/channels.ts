// The per-user channels of /ws, in the exchange's shapes: userFills, userFundings and userNonFundingLedgerUpdates
// (a snapshot from storage marked `isSnapshot: true`, then live frames), userEvents (channel "user"),
// orderUpdates, and the service's own liquidations channel with its filters. Each follows one of the accounts
// service's streams (subgraphs/accounts/service/streams.ts); what is here is the wire: parameters, frame shapes
// and joining a stored snapshot to the live stream.
import type { OrderStatusRow } from '../../../db/rows/accounts.ts';
import {
  type Channel,
  type ChannelContext,
  SubscriptionError,
  sendStream,
  subscriptionInput,
} from '../../../kit/channel.ts';
import { isDecimal } from '../../../platform/decimal.ts';
import type { StoredSnapshotStream } from '../../live.ts';
import { type AccountsService, MAX_LIQUIDATION_USERS, toWsLiquidation, type UserEvent } from '../service/index.ts';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function userParam(sub: Record<string, unknown>, key = 'user'): string {
  const v = sub[key];
  if (typeof v !== 'string' || !ADDRESS.test(v)) throw new SubscriptionError(`${key}: must be a 0x address`);
  return v.toLowerCase();
}

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
 * A snapshot from storage, then live items, with nothing lost or sent twice between them: the stream is followed
 * before the snapshot is read, what arrives meanwhile is held back and sent after the snapshot, less what the
 * snapshot already holds (same `key`). If the snapshot cannot be read, the stream is left again.
 */
async function snapshotThenLive<I>(
  stream: StoredSnapshotStream<I>,
  send: (items: I[], isSnapshot: boolean) => void,
): Promise<() => void> {
  let pending: I[] | null = [];
  const off = stream.subscribe((items) => {
    if (pending) pending.push(...items);
    else send(items, false);
  });
  try {
    const snapshot = await stream.snapshot();
    send(snapshot, true);
    const seen = new Set(snapshot.map(stream.key));
    const missed = pending.filter((item) => !seen.has(stream.key(item)));
    pending = null;
    if (missed.length) send(missed, false);
    return off;
  } catch (err) {
    off();
    throw err;
  }
}

const snapshotFlag = (isSnapshot: boolean) => (isSnapshot ? { isSnapshot: true as const } : {});

/** The exchange's userEvents frame: its nonUserCancel items carry the coin and oid only. */
const userEventFrame = (e: UserEvent): UserEvent | { nonUserCancel: { coin: string; oid: number }[] } =>
  e.nonUserCancel ? { nonUserCancel: e.nonUserCancel.map(({ coin, oid }) => ({ coin, oid })) } : e;

export function accountChannels(accounts: AccountsService): Channel[] {
  const { streams } = accounts;
  return [
    userChannel(
      'userFills',
      (user, sub, ctx) =>
        snapshotThenLive(
          streams.userFills(user, { aggregateByTime: sub.aggregateByTime === true }),
          (fills, isSnapshot) => ctx.send({ user, fills, ...snapshotFlag(isSnapshot) }),
        ),
      {
        normalize: (sub) => ({ ...sub, user: userParam(sub), aggregateByTime: sub.aggregateByTime ?? false }),
        storedSnapshot: true,
      },
    ),
    userChannel(
      'userFundings',
      (user, _sub, ctx) =>
        snapshotThenLive(streams.userFundings(user), (fundings, isSnapshot) =>
          ctx.send({ user, fundings, ...snapshotFlag(isSnapshot) }),
        ),
      { storedSnapshot: true },
    ),
    userChannel(
      'userNonFundingLedgerUpdates',
      (user, _sub, ctx) =>
        snapshotThenLive(streams.userNonFundingLedgerUpdates(user), (nonFundingLedgerUpdates, isSnapshot) =>
          ctx.send({ user, nonFundingLedgerUpdates, ...snapshotFlag(isSnapshot) }),
        ),
      { storedSnapshot: true },
    ),
    userChannel('userEvents', (user, _sub, ctx) => sendStream(streams.userEvents(user), ctx, userEventFrame), {
      channelName: () => 'user',
    }),
    userChannel('orderUpdates', (user, _sub, ctx) =>
      sendStream(streams.orderUpdates(user), ctx, (rows) =>
        rows.map((r) => ({ order: openOrder(r), status: r.status, statusTimestamp: r.time })),
      ),
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
        const stream = subscriptionInput(() =>
          streams.liquidations({
            user: sub.user as string | undefined,
            users: sub.users as string[] | undefined,
            amountDollars: sub.amount_dollars as number | string | undefined,
            builder: sub.builder as string | undefined,
          }),
        );
        return sendStream(stream, ctx, (rows) =>
          rows.map((r) => ({ ...toWsLiquidation(r), coin: r.coin, px: r.px, sz: r.sz, time: r.time })),
        );
      },
    },
  ];
}
