// User @key(address): an account's fills, orders, TWAP slices and statuses, funding, ledger, liquidations and perp
// account state. Owned here; the markets subgraph references it (the traders of a trade). Query.user returns it.

import { selectedFieldNames } from '../../../kit/selection.ts';
import { builder } from '../builder.ts';
import { MAX_WIRE_FILLS } from '../service/fills.ts';
import {
  FILL_PAGE,
  FUNDING_PAGE,
  LEDGER_PAGE,
  ORDER_STATUS,
  ORDERS_PAGE,
  TWAP_SLICE_FILLS,
  USER_ENTITY,
} from '../service/inputs.ts';
import { orderRef } from '../service/orders.ts';
import { badInput, serviceInput } from './args.ts';
import { FillConnectionRef, fillsConnection, TwapSliceFillRef } from './fill.ts';
import { FundingConnectionRef, fundingsConnection } from './funding.ts';
import { LedgerUpdateConnectionRef, ledgerConnection } from './ledger.ts';
import { OrderStatusConnectionRef, OrderStatusRef, ordersConnection } from './order.ts';

/** An ID argument as its definition reads it: its digits as a number (other text is refused by the definition). */
const idOf = (id: unknown) => (typeof id === 'string' && /^\d{1,16}$/.test(id) ? Number(id) : id);
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
      args: FILL_PAGE.args(t),
      listSize: { slicingArguments: ['first'], sizedFields: ['edges'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx, info) =>
        fillsConnection(ctx.accounts, { user: u.address }, FILL_PAGE.parse(a, 'graphql'), selectedFieldNames(info)),
    }),
    twapSliceFills: t.field({
      type: [TwapSliceFillRef],
      description: `Fills of the user's TWAP slices, newest first, at most ${MAX_WIRE_FILLS}`,
      args: TWAP_SLICE_FILLS.args(t, { omit: ['user'], types: { twapId: 'ID' } }),
      listSize: { assumedSize: 100 },
      resolve: (u, a, ctx) =>
        ctx.accounts.twapSliceFills(
          TWAP_SLICE_FILLS.parse({ ...a, twapId: idOf(a.twapId), user: u.address }, 'graphql'),
        ),
    }),
    orders: t.field({
      type: OrderStatusConnectionRef,
      description:
        'Orders with a status in the window, by oid descending: per order its latest status (trigger orders: the ' +
        'latest of each status); `first` counts orders; `after` is the last oid of the previous page',
      args: ORDERS_PAGE.args(t),
      listSize: { slicingArguments: ['first'], sizedFields: ['edges'], requireOneSlicingArgument: false },
      resolve: (u, a, ctx, info) =>
        ordersConnection(ctx.accounts, u.address, ORDERS_PAGE.parse(a, 'graphql'), selectedFieldNames(info)),
    }),
    orderStatus: t.field({
      type: OrderStatusRef,
      nullable: true,
      description: 'The latest status of one order, by oid or cloid (live, then the node, then history); null: unknown',
      args: ORDER_STATUS.args(t, { omit: ['user'], types: { oid: 'ID' } }),
      resolve: async (u, a, ctx) => {
        if ((a.oid == null) === (a.cloid == null)) throw badInput('oid', 'give exactly one of oid and cloid');
        const q = ORDER_STATUS.parse({ ...a, user: u.address }, 'graphql');
        const answer = await serviceInput('oid', () =>
          ctx.accounts.orderStatus({ user: q.user, ...orderRef(q.oid, q.cloid) }),
        );
        return answer.status === 'order' ? { ...answer.order, user: u.address } : null;
      },
    }),
    fundings: t.field({
      type: FundingConnectionRef,
      description:
        'Funding payments: with startTime, the window oldest first (as the exchange answers it); without, the newest ' +
        'first (up to endTime). `after` is an endCursor `"<time>:<block>:<coin>"`',
      args: FUNDING_PAGE.args(t, ['user']),
      listSize: HISTORY_LIST_SIZE,
      resolve: (u, a, ctx) =>
        fundingsConnection(ctx.accounts, FUNDING_PAGE.parse({ ...a, user: u.address }, 'graphql')),
    }),
    ledgerUpdates: t.field({
      type: LedgerUpdateConnectionRef,
      description:
        'Non-funding ledger updates, paged as fundings: with startTime the window oldest first, without the newest ' +
        'first. `after` is an endCursor `"<time>:<block>:<hash>:<digest>"`',
      args: LEDGER_PAGE.args(t, ['user']),
      listSize: HISTORY_LIST_SIZE,
      resolve: (u, a, ctx) => ledgerConnection(ctx.accounts, LEDGER_PAGE.parse({ ...a, user: u.address }, 'graphql')),
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
    args: USER_ENTITY.args(t),
    resolve: (_r, a) => ({ address: USER_ENTITY.parse(a, 'graphql').user }),
  }),
}));
