// User @key(address): an account's fills, orders, TWAP slices and statuses, funding, ledger, liquidations and perp
// account state. Owned here; the markets subgraph references it (the traders of a trade). Query.user returns it.

import { selectedFieldNames } from '../../selection.ts';
import { builder } from '../builder.ts';
import {
  LIQUIDATIONS_DEFAULT_LIMIT,
  MAX_HISTORY_PAGE,
  MAX_LIQUIDATIONS,
  MAX_TWAP_HISTORY,
  MAX_WIRE_FILLS,
} from '../service/index.ts';
import { AccountStateRef } from './account.ts';
import { addressArg, badInput, cloidArg, idArg } from './args.ts';
import { FillConnectionRef, fillPageArgs, fillsConnection, TwapSliceFillRef } from './fill.ts';
import { FundingConnectionRef, fundingsConnection } from './funding.ts';
import { LedgerUpdateConnectionRef, ledgerConnection } from './ledger.ts';
import { LiquidationRef } from './liquidation.ts';
import { OrderStatusConnectionRef, OrderStatusRef, ordersConnection } from './order.ts';
import { TwapStatusChangeRef } from './twap.ts';

/** The arguments of a user's funding and ledger connections (the service's history pages). */
const historyArgs = builder.args((t) => ({
  first: t.int({ required: true, defaultValue: MAX_HISTORY_PAGE, description: `1 to ${MAX_HISTORY_PAGE}` }),
  after: t.string(),
  startTime: t.field({ type: 'Timestamp' }),
  endTime: t.field({ type: 'Timestamp' }),
}));
const HISTORY_LIST_SIZE = { slicingArguments: ['first'], sizedFields: ['edges'], requireOneSlicingArgument: false };

interface UserParent {
  address: string;
}

export const UserRef = builder.objectRef<UserParent>('User').implement({
  description: 'An account, by its lowercase 0x address',
  fields: (t) => ({
    address: t.exposeString('address'),
    fills: t.field({
      type: FillConnectionRef,
      description:
        'Newest first, fills of one time in execution order; `after` is a cursor ' +
        '`"<time>:<block>:<event index>:<tid>"` (an endCursor)',
      args: { ...fillPageArgs, aggregateByTime: t.arg.boolean({ required: true, defaultValue: false }) },
      listSize: { slicingArguments: ['first'], sizedFields: ['edges'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx, info) => fillsConnection(ctx.accounts, { user: u.address }, a, selectedFieldNames(info)),
    }),
    twapSliceFills: t.field({
      type: [TwapSliceFillRef],
      description: `Fills of the user's TWAP slices, newest first, at most ${MAX_WIRE_FILLS}`,
      args: { twapId: t.arg.id(), startTime: t.arg({ type: 'Timestamp' }), endTime: t.arg({ type: 'Timestamp' }) },
      listSize: { assumedSize: 100 },
      resolve: (u, a, ctx) =>
        ctx.accounts.twapSliceFills({
          user: u.address,
          twapId: a.twapId == null ? undefined : idArg(a.twapId, 'twapId'),
          startTime: a.startTime ?? undefined,
          endTime: a.endTime ?? undefined,
        }),
    }),
    twapHistory: t.field({
      type: [TwapStatusChangeRef],
      description: `The status changes of the user's TWAP orders, oldest first: the newest ${MAX_TWAP_HISTORY}`,
      listSize: { assumedSize: 100 },
      resolve: (u, _a, ctx) => ctx.accounts.twapHistory(u.address),
    }),
    orders: t.field({
      type: OrderStatusConnectionRef,
      description:
        'Orders with a status in the window, by oid descending: per order its latest status (trigger orders: the ' +
        'latest of each status); `first` counts orders; `after` is the last oid of the previous page',
      args: {
        first: t.arg.int({ required: true, defaultValue: 100, description: '1 to 2000' }),
        after: t.arg.string(),
        startTime: t.arg({ type: 'Timestamp' }),
        endTime: t.arg({ type: 'Timestamp' }),
      },
      listSize: { slicingArguments: ['first'], sizedFields: ['edges'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx, info) => ordersConnection(ctx.accounts, u.address, a, selectedFieldNames(info)),
    }),
    orderStatus: t.field({
      type: OrderStatusRef,
      nullable: true,
      description: 'The latest status of one order, by oid or cloid (live, then the node, then history); null: unknown',
      args: { oid: t.arg.id(), cloid: t.arg.string() },
      resolve: async (u, a, ctx) => {
        if ((a.oid == null) === (a.cloid == null)) throw badInput('oid', 'give exactly one of oid and cloid');
        const answer = await ctx.accounts.orderStatus({
          user: u.address,
          ...(a.oid == null ? { cloid: cloidArg(a.cloid as string) } : { oid: idArg(a.oid, 'oid') }),
        });
        return answer.status === 'order' ? { ...answer.order, user: u.address } : null;
      },
    }),
    fundings: t.field({
      type: FundingConnectionRef,
      description:
        'Funding payments: with startTime, the window oldest first (as the exchange answers it); without, the newest ' +
        'first (up to endTime). `after` is an endCursor `"<time>:<block>:<coin>"`',
      args: historyArgs,
      listSize: HISTORY_LIST_SIZE,
      resolve: (u, a, ctx) => fundingsConnection(ctx.accounts, u.address, a),
    }),
    ledgerUpdates: t.field({
      type: LedgerUpdateConnectionRef,
      description:
        'Non-funding ledger updates, paged as fundings: with startTime the window oldest first, without the newest ' +
        'first. `after` is an endCursor `"<time>:<block>:<hash>:<digest>"`',
      args: historyArgs,
      listSize: HISTORY_LIST_SIZE,
      resolve: (u, a, ctx) => ledgerConnection(ctx.accounts, u.address, a),
    }),
    liquidations: t.field({
      type: [LiquidationRef],
      description: 'Liquidations in which the user was liquidated or the liquidator, most recent first',
      args: {
        limit: t.arg.int({
          required: true,
          defaultValue: LIQUIDATIONS_DEFAULT_LIMIT,
          description: `1 to ${MAX_LIQUIDATIONS}`,
        }),
      },
      listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx) => ctx.accounts.liquidations(u.address, a.limit),
    }),
    account: t.field({
      type: AccountStateRef,
      resolve: (u, _a, ctx) => ctx.accounts.accountState(u.address),
    }),
  }),
});

builder.asEntity(UserRef, {
  key: builder.selection<{ address: string }>('address'),
  resolveReference: (ref) => ({ address: ref.address.toLowerCase() }),
});

builder.queryFields((t) => ({
  user: t.field({
    type: UserRef,
    description: 'An account by its 0x address (any case)',
    args: { address: t.arg.string({ required: true }) },
    resolve: (_r, a) => ({ address: addressArg(a.address) }),
  }),
}));
