// The per-user channels of /ws, in the exchange's shapes: userFills, userFundings and userNonFundingLedgerUpdates
// (a snapshot from storage marked `isSnapshot: true`, then live frames), userEvents (channel "user"),
// orderUpdates, and the service's own liquidations channel with its filters. Each follows one of the accounts
// service's streams (domains/accounts/service/streams.ts); what is here is the wire: parameters, frame shapes
// and joining a stored snapshot to the live stream.
import type { LiquidationRow, OrderStatusRow } from '../../../db/rows/accounts.ts';
import {
  type Channel,
  type ChannelContext,
  readChannel,
  type StoredFrames,
  sendStream,
  storedFrames,
} from '../../../kit/channel.ts';
import type { StoredSnapshotStream } from '../../../kit/live.ts';
import type { AccountsService } from '../service/index.ts';
import { LIQUIDATION_STREAM, USER, USER_FILLS_STREAM } from '../service/inputs.ts';
import { toWsLiquidation } from '../service/liquidations.ts';
import type { UserEvent } from '../service/streams.ts';

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

/**
 * A per-user channel: its `user` read as USER reads an /info body's (lowercased in the ack), then a storage snapshot
 * and live frames, or live frames only.
 */
function userChannel(
  type: string,
  start: (user: string, ctx: ChannelContext) => (() => void) | Promise<() => void>,
  extra: { channelName?: () => string; storedSnapshot?: boolean; stored?: (user: string) => StoredFrames } = {},
): Channel {
  const { stored, ...rest } = extra;
  return readChannel({
    type,
    read: (sub) => USER.parse(sub, 'info'),
    start: ({ user }, ctx) => start(user, ctx),
    ...(stored ? { stored: ({ user }: { user: string }) => stored(user) } : {}),
    ...rest,
  });
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

/** The exchange's orderUpdates frame. */
const orderUpdatesFrame = (rows: OrderStatusRow[]) =>
  rows.map((r) => ({ order: openOrder(r), status: r.status, statusTimestamp: r.time }));

/** The liquidations channel's frame. */
const liquidationsFrame = (rows: LiquidationRow[]) =>
  rows.map((r) => ({ ...toWsLiquidation(r), coin: r.coin, px: r.px, sz: r.sz, time: r.time }));

/** The exchange's userEvents frame: its nonUserCancel items carry the coin and oid only. */
const userEventFrame = (e: UserEvent): UserEvent | { nonUserCancel: { coin: string; oid: number }[] } =>
  e.nonUserCancel ? { nonUserCancel: e.nonUserCancel.map(({ coin, oid }) => ({ coin, oid })) } : e;

export function accountChannels(accounts: AccountsService): Channel[] {
  const { streams, stored } = accounts;
  return [
    readChannel({
      type: 'userFills',
      // The ack holds the default too: aggregateByTime false.
      read: (sub) => USER_FILLS_STREAM.parse(sub, 'info'),
      start: (input, ctx) =>
        snapshotThenLive(streams.userFills(input.user, input), (fills, isSnapshot) =>
          ctx.send({ user: input.user, fills, ...snapshotFlag(isSnapshot) }),
        ),
      storedSnapshot: true,
      stored: (input) => storedFrames(stored.userFills(input.user, input), (fills) => ({ user: input.user, fills })),
    }),
    userChannel(
      'userFundings',
      (user, ctx) =>
        snapshotThenLive(streams.userFundings(user), (fundings, isSnapshot) =>
          ctx.send({ user, fundings, ...snapshotFlag(isSnapshot) }),
        ),
      {
        storedSnapshot: true,
        stored: (user) => storedFrames(stored.userFundings(user), (fundings) => ({ user, fundings })),
      },
    ),
    userChannel(
      'userNonFundingLedgerUpdates',
      (user, ctx) =>
        snapshotThenLive(streams.userNonFundingLedgerUpdates(user), (nonFundingLedgerUpdates, isSnapshot) =>
          ctx.send({ user, nonFundingLedgerUpdates, ...snapshotFlag(isSnapshot) }),
        ),
      {
        storedSnapshot: true,
        stored: (user) =>
          storedFrames(stored.userNonFundingLedgerUpdates(user), (nonFundingLedgerUpdates) => ({
            user,
            nonFundingLedgerUpdates,
          })),
      },
    ),
    userChannel('userEvents', (user, ctx) => sendStream(streams.userEvents(user), ctx, userEventFrame), {
      channelName: () => 'user',
      stored: (user) => storedFrames(stored.userEvents(user), userEventFrame),
    }),
    userChannel('orderUpdates', (user, ctx) => sendStream(streams.orderUpdates(user), ctx, orderUpdatesFrame), {
      stored: (user) => storedFrames(stored.orderUpdates(user), orderUpdatesFrame),
    }),
    readChannel({
      type: 'liquidations',
      read: (sub) => LIQUIDATION_STREAM.parse(sub, 'info'),
      // The ack echoes amount_dollars as sent, and the addresses lowercased.
      normalize: (sub, { amountDollars: _asSent, ...addresses }) => ({ ...sub, ...addresses }),
      start: (filter, ctx) => sendStream(streams.liquidations(filter), ctx, liquidationsFrame),
      stored: (filter) => storedFrames(stored.liquidations(filter), liquidationsFrame),
    }),
  ];
}
