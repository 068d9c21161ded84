// The per-user channels of /ws, in the exchange's shapes: userFills, userFundings and userNonFundingLedgerUpdates
// (a snapshot from storage marked `isSnapshot: true`, then live frames), userEvents (channel "user"),
// orderUpdates, and the service's own liquidations channel with its filters. Each follows one of the accounts
// service's streams (subgraphs/accounts/service/streams.ts); what is here is the wire: parameters, frame shapes
// and joining a stored snapshot to the live stream.
import type { OrderStatusRow } from '../../../db/rows/accounts.ts';
import { type Channel, type ChannelContext, sendStream } from '../../../kit/channel.ts';
import type { StoredSnapshotStream } from '../../live.ts';
import {
  type AccountsService,
  LIQUIDATION_STREAM,
  toWsLiquidation,
  USER,
  USER_FILLS_STREAM,
  type UserEvent,
} from '../service/index.ts';

/** A subscription's `user`, read as USER reads an /info body's (a refusal is the subscription's). */
const userOf = (sub: Record<string, unknown>) => USER.parse(sub, 'info').user;

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

/** A per-user channel: normalise `user`, then a storage snapshot and live frames, or live frames only. */
function userChannel(
  type: string,
  start: (user: string, sub: Record<string, unknown>, ctx: ChannelContext) => (() => void) | Promise<() => void>,
  extra: Partial<Channel> = {},
): Channel {
  return {
    type,
    normalize: (sub) => ({ ...sub, user: userOf(sub) }),
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
        snapshotThenLive(streams.userFills(user, USER_FILLS_STREAM.parse(sub, 'info')), (fills, isSnapshot) =>
          ctx.send({ user, fills, ...snapshotFlag(isSnapshot) }),
        ),
      {
        // The ack holds the default too: aggregateByTime false.
        normalize: (sub) => ({ ...sub, ...USER_FILLS_STREAM.parse(sub, 'info') }),
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
        // The ack echoes amount_dollars as sent, and the addresses lowercased.
        const { amountDollars: _asSent, ...addresses } = LIQUIDATION_STREAM.parse(sub, 'info');
        return { ...sub, ...addresses };
      },
      start(sub, ctx) {
        const stream = streams.liquidations(LIQUIDATION_STREAM.parse(sub, 'info'));
        return sendStream(stream, ctx, (rows) =>
          rows.map((r) => ({ ...toWsLiquidation(r), coin: r.coin, px: r.px, sz: r.sz, time: r.time })),
        );
      },
    },
  ];
}
