// The accounts domain's live capabilities (kit/capability.ts `live`): the per-user streams and liquidations, each a
// stored stream (domains/accounts/service/stored-streams.ts) resumed and replayed from the store, with its doors: the
// subscription and its replay, the /ws channel in the exchange's shapes (userFills, userFundings and
// userNonFundingLedgerUpdates: a snapshot from storage marked `isSnapshot: true`, then live frames; userEvents on
// channel "user"; orderUpdates; the service's own liquidations channel with its filters), and the MCP tools
// collecting userEvents and liquidations for some seconds.
import type { LiquidationRow, OrderStatusRow } from '../../db/rows/accounts.ts';
import type { Capability, ChannelDoor } from '../../kit/capability.ts';
import { liveCapability } from '../../kit/capability.ts';
import { snapshotFlag, snapshotThenLive } from '../../kit/channel.ts';
import type { StoredSnapshotStream } from '../../kit/live.ts';
import { FillRef } from './schema/fill.ts';
import { FundingRef } from './schema/funding.ts';
import { LedgerUpdateRef } from './schema/ledger.ts';
import { LiquidationRef } from './schema/liquidation.ts';
import { OrderStatusRef } from './schema/order.ts';
import { UserEventRef } from './schema/user-event.ts';
import type { AccountsService } from './service/index.ts';
import {
  COLLECT_LIQUIDATIONS,
  COLLECT_USER_EVENTS,
  LIQUIDATION_STREAM,
  USER,
  USER_FILLS_STREAM,
} from './service/inputs.ts';
import { toWsLiquidation } from './service/liquidations.ts';
import { basicOrder, toOrder } from './service/orders.ts';
import type { UserEvent } from './service/streams.ts';

// biome-ignore lint/suspicious/noExplicitAny: a channel door over any input holding a user
type Any = any;

/** The exchange's OpenOrder (orderUpdates): the basic order fields, `reduceOnly` only when true. */
const openOrder = (r: OrderStatusRow) => ({
  ...basicOrder(r),
  origSz: r.orig_sz,
  ...(r.cloid ? { cloid: r.cloid } : {}),
  ...(r.reduce_only ? { reduceOnly: true as const } : {}),
});

/** The exchange's orderUpdates frame. */
const orderUpdatesFrame = (rows: OrderStatusRow[]) =>
  rows.map((r) => ({ order: openOrder(r), status: r.status, statusTimestamp: r.time }));

/** A liquidation as the liquidations channel and its collecting tool send it. */
const wsLiquidation = (r: LiquidationRow) => ({
  ...toWsLiquidation(r),
  coin: r.coin,
  px: r.px,
  sz: r.sz,
  time: r.time,
});

/** The exchange's userEvents frame: its nonUserCancel items carry the coin and oid only. */
const userEventFrame = (e: UserEvent): UserEvent | { nonUserCancel: { coin: string; oid: number }[] } =>
  e.nonUserCancel ? { nonUserCancel: e.nonUserCancel.map(({ coin, oid }) => ({ coin, oid })) } : e;

/**
 * A user's history channel (userFills, userFundings, userNonFundingLedgerUpdates): a snapshot from storage marked
 * `isSnapshot: true`, then live frames, each `{user, [key]: items}`; a stored event framed as a live one.
 */
const historyChannel = <I>(
  key: string,
  streamOf: (accounts: AccountsService, input: Any) => StoredSnapshotStream<I>,
): ChannelDoor<AccountsService, Any, I[]> => ({
  storedSnapshot: true,
  start: (accounts, input, ctx) =>
    snapshotThenLive(streamOf(accounts, input), (items, isSnapshot) =>
      ctx.send({ user: input.user, [key]: items, ...snapshotFlag(isSnapshot) }),
    ),
  frame: (items, { user }) => ({ user, [key]: items }),
});

/** The replay field's description of a user's stream replayed as its subscription sends it. */
const replayedAs = (what: string, name: string) =>
  `${what} of a stored window, replayed as ${name} sends them (userFillsReplay)`;

export const LIVE_CAPABILITIES: readonly Capability<AccountsService>[] = [
  liveCapability({
    name: 'userFillsStream',
    input: USER_FILLS_STREAM,
    live: {
      name: 'userFills',
      stored: ({ stored }, { user, aggregateByTime }) => stored.userFills(user, { aggregateByTime }),
      subscription: {
        type: FillRef,
        batch: 20,
        description: "The user's fills as they happen, one batch per block (history: User.fills)",
        replay:
          "The user's fills of a stored window, paced by their own times at `speed`, as userFills sends them, with a " +
          'gap frame where the store has a hole and a complete frame at the end (the /ws replay subscription)',
      },
      // The ack holds the default too: aggregateByTime false.
      channel: historyChannel('fills', ({ streams }, input) => streams.userFills(input.user, input)),
    },
  }),
  liveCapability({
    name: 'userFundingsStream',
    input: USER,
    live: {
      name: 'userFundings',
      stored: ({ stored }, { user }) => stored.userFundings(user),
      subscription: {
        type: FundingRef,
        batch: 20,
        description: "The user's funding payments as they settle, one batch per block (history: User.fundings)",
        replay: replayedAs("The user's funding payments", 'userFundings'),
      },
      channel: historyChannel('fundings', ({ streams }, { user }) => streams.userFundings(user)),
    },
  }),
  liveCapability({
    name: 'userNonFundingLedgerUpdatesStream',
    input: USER,
    live: {
      name: 'userNonFundingLedgerUpdates',
      stored: ({ stored }, { user }) => stored.userNonFundingLedgerUpdates(user),
      subscription: {
        type: LedgerUpdateRef,
        batch: 10,
        description: "The user's non-funding ledger updates as they happen (history: User.ledgerUpdates)",
        replay: replayedAs("The user's non-funding ledger updates", 'userNonFundingLedgerUpdates'),
      },
      channel: historyChannel('nonFundingLedgerUpdates', ({ streams }, { user }) =>
        streams.userNonFundingLedgerUpdates(user),
      ),
    },
  }),
  liveCapability({
    name: 'userEventsStream',
    input: USER,
    live: {
      name: 'userEvents',
      live: ({ streams }, { user }) => streams.userEvents(user),
      stored: ({ stored }, { user }) => stored.userEvents(user),
      subscription: {
        type: UserEventRef,
        description:
          "The user's fills (one batch per block), funding payments and liquidations (one frame each), and cancels",
        replay: replayedAs("The user's events", 'userEvents'),
      },
      channel: { channelName: () => 'user', frame: userEventFrame },
      collect: {
        name: 'accounts_collect_user_events',
        title: "Collect a user's live events",
        description:
          "Waits and collects a user's events as they happen for `seconds` (1 to 60): fills, funding payments, " +
          'liquidations and orders the exchange canceled. For "tell me what happens on this account in the next 30 s".',
        input: COLLECT_USER_EVENTS,
        key: 'events',
        max: 10_000,
      },
    },
  }),
  liveCapability({
    name: 'orderUpdatesStream',
    input: USER,
    live: {
      name: 'orderUpdates',
      live: ({ streams }, { user }) => streams.orderUpdates(user),
      stored: ({ stored }, { user }) => stored.orderUpdates(user),
      subscription: {
        type: OrderStatusRef,
        batch: 20,
        description: "The user's order status changes as they happen, one batch per block",
        of: (rows, cursor) => rows.map((r) => ({ ...toOrder(r), user: r.address, cursor })),
        replay: replayedAs("The user's order status changes", 'orderUpdates'),
      },
      channel: { frame: orderUpdatesFrame },
    },
  }),
  liveCapability({
    name: 'liquidationsStream',
    input: LIQUIDATION_STREAM,
    live: {
      name: 'liquidations',
      live: ({ streams }, filter) => streams.liquidations(filter),
      stored: ({ stored }, filter) => stored.liquidations(filter),
      subscription: {
        type: LiquidationRef,
        batch: 10,
        types: { amountDollars: 'Decimal' },
        description:
          'Liquidations as they happen; every given filter applies (users: at most 50, each matching either side)',
        replay: 'Liquidations of a stored window, filtered and replayed as liquidations sends them (userFillsReplay)',
      },
      channel: {
        // The ack echoes amount_dollars as sent, and the addresses lowercased.
        normalize: (sub, { amountDollars: _asSent, ...addresses }) => ({ ...sub, ...addresses }),
        frame: (rows) => rows.map(wsLiquidation),
      },
      collect: {
        name: 'accounts_collect_liquidations',
        title: 'Collect live liquidations',
        description:
          'Waits and collects liquidations as they happen for `seconds` (1 to 60), filtered by user or users ' +
          '(liquidated or liquidator), minimum notional in dollars and builder; all filters combine.',
        input: COLLECT_LIQUIDATIONS,
        key: 'liquidations',
        max: 5_000,
        items: (rows) => rows.map(wsLiquidation),
      },
    },
  }),
];
