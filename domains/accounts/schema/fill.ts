// Fill: one execution as the exchange prints it (wire Fill) with the type of its order and its market; the fills
// connection of a user (keyset pages of stored fills); TWAP slice fills (the userFills subscription:
// live-capabilities.ts).
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { toConnection } from '../../../kit/page.ts';
import { columnsFor, selectedFieldNames } from '../../../kit/selection.ts';
import { builder } from '../builder.ts';
import {
  FILL_COLUMNS_BY_FIELD,
  type FillColumn,
  type StoredFill,
  toWireFill,
  type WireFill,
} from '../service/fill-fields.ts';
import { fillCursor, MAX_COUNTED_FILLS } from '../service/fill-pages.ts';
import type { AccountsService } from '../service/index.ts';
import { ALL_FILL_PAGE, type FillPageInput } from '../service/inputs.ts';
import type { TwapSliceFill } from '../service/twaps.ts';
import { serviceInput } from './args.ts';
import { MarketRef } from './market.ts';

/** A wire fill; `orderType`, the account (`address`) and the builder are known on stored fills only. */
export type FillNode = WireFill & { orderType?: string | null; address?: string; builder?: string | null };

const FillLiquidationRef = builder.objectRef<NonNullable<WireFill['liquidation']>>('FillLiquidation').implement({
  fields: (t) => ({
    liquidatedUser: t.exposeString('liquidatedUser'),
    markPx: t.expose('markPx', { type: 'Decimal' }),
    method: t.exposeString('method', { description: '"market" or "backstop"' }),
  }),
});

export const FillRef = builder.objectRef<FillNode>('Fill').implement({
  description: "One of the user's executions, as the exchange prints it",
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    coin: t.exposeString('coin'),
    market: t.field({ type: MarketRef, resolve: (f) => ({ coin: f.coin }) }),
    px: t.expose('px', { type: 'Decimal' }),
    sz: t.expose('sz', { type: 'Decimal' }),
    side: t.exposeString('side', { description: '"B" (bid, buy) or "A" (ask, sell)' }),
    time: t.expose('time', { type: 'Timestamp' }),
    startPosition: t.expose('startPosition', { type: 'Decimal', description: 'Position size before the fill' }),
    dir: t.exposeString('dir', { description: '"Open Long", "Close Short", "Buy", "Long > Short"...' }),
    closedPnl: t.expose('closedPnl', { type: 'Decimal' }),
    hash: t.exposeString('hash'),
    oid: t.id({ description: 'Order id (a u64, as a string)', resolve: (f) => String(f.oid) }),
    crossed: t.exposeBoolean('crossed', { description: 'Taker' }),
    fee: t.expose('fee', { type: 'Decimal', description: 'Total fee including the builder fee; negative: rebate' }),
    tid: t.id({ description: 'Trade id (a 50-bit number, as a string)', resolve: (f) => String(f.tid) }),
    feeToken: t.exposeString('feeToken'),
    builderFee: t.expose('builderFee', { type: 'Decimal', nullable: true }),
    twapId: t.id({ nullable: true, resolve: (f) => (f.twapId === null ? null : String(f.twapId)) }),
    cloid: t.exposeString('cloid', { nullable: true }),
    liquidation: t.field({ type: FillLiquidationRef, nullable: true, resolve: (f) => f.liquidation ?? null }),
    orderType: t.string({
      nullable: true,
      description: '"Limit", "Market", "Stop Market"...: on stored fills whose order statuses are indexed',
      resolve: (f) => f.orderType ?? null,
    }),
  }),
});

/**
 * The columns each Fill field is printed from: a stored fill's fields' (fill-fields.ts), and GraphQL's own, `market`
 * (its coin) and `cursor` (set on the fills a subscription sends; none read from storage). A test holds this to the
 * schema's Fill fields.
 */
export const FILL_FIELD_COLUMNS: Readonly<Record<string, readonly FillColumn[]>> = {
  ...FILL_COLUMNS_BY_FIELD,
  market: ['coin'],
  cursor: [],
};

/** The columns behind the Fill fields among `selected` (field names anywhere in the selection). */
export const fillColumnsOf = (selected: Iterable<string>) => columnsFor(selected, FILL_FIELD_COLUMNS);

export const FillConnectionRef = builder.connectionObject(
  {
    type: FillRef,
    name: 'FillConnection',
    fields: (t) => ({
      totalCount: t.int({
        nullable: true,
        description: `Fills matching the filters (not the cursor); null with aggregateByTime, or past ${MAX_COUNTED_FILLS}`,
        // Counting a large history costs more than the page: only when asked for.
        resolve: (c) => (c as { totalCount?: () => Promise<number | null> }).totalCount?.() ?? null,
      }),
    }),
  },
  { name: 'FillEdge' },
);

export const TwapSliceFillRef = builder.objectRef<TwapSliceFill>('TwapSliceFill').implement({
  fields: (t) => ({
    fill: t.field({ type: FillRef, resolve: (s) => s.fill }),
    twapId: t.id({ resolve: (s) => String(s.twapId) }),
  }),
});

/**
 * A page of the user's fills, newest first and within one time in execution order, keyset-paged by the service
 * (cursor `"<time>:<block>:<event index>:<tid>"`):
 * one query for the stored rows, printed as wire fills. `totalCount` is counted only when asked for. With
 * aggregateByTime a page holds whole timestamps (unless one timestamp fills it), so that the partial fills of a
 * crossing order are merged from all their parts; its edges' own cursors are then only approximate resume points.
 */
export async function fillsConnection(
  accounts: AccountsService,
  whose: { user?: string; builder?: string },
  a: Omit<FillPageInput, 'startTime'> & { startTime?: number },
  selected: ReadonlySet<string>,
) {
  const { user } = whose;
  const { aggregateByTime, ...filters } = a;
  const query = {
    ...whose,
    ...filters,
    order: 'desc' as const,
    // A lookup per fill in the order statuses: only when `orderType` is selected.
    includeOrderType: selected.has('orderType'),
  };
  if (aggregateByTime) {
    // Merged by the service's one rule (the REST and MCP answers' too); the order's type is not merged.
    const page = await serviceInput('after', () => accounts.fillPage({ ...query, aggregateByTime }, undefined));
    // A merged fill keeps its first part's (time, tid), hence that part's cursor (an approximate resume point).
    const rows = page.rows as StoredFill[];
    const cursors = new Map(rows.map((r) => [`${r.time}:${r.tid}`, fillCursor(r)]));
    const builders = new Map(rows.map((r) => [`${r.time}:${r.tid}`, r.builder]));
    const fills = (page.fills ?? []) as FillNode[];
    for (const f of fills) {
      f.address = user;
      f.builder = builders.get(`${f.time}:${f.tid}`) ?? null;
    }
    return {
      ...toConnection(fills, (f) => cursors.get(`${f.time}:${f.tid}`) ?? '', {
        hasMore: page.hasMore,
        nextCursor: page.nextCursor,
        after: a.cursor,
      }),
      totalCount: async () => null,
    };
  }
  // Only the columns of the selected fields.
  const page = await serviceInput('after', () => accounts.fillPage(query, fillColumnsOf(selected)));
  // Assigned, not spread into a copy: spreading 2 000 fills took 5.7 ms, assigning 0.06 ms.
  const nodes: FillNode[] = page.rows.map((r) => {
    // The fields whose columns were not read come out undefined; no resolver of this selection reads them.
    const node: FillNode = toWireFill(r as StoredFill);
    node.orderType = r.order_type ?? null;
    node.address = r.address;
    node.builder = r.builder;
    return node;
  });
  return {
    ...toConnection(nodes, (_f, i) => fillCursor(page.rows[i] as StoredFill), {
      hasMore: page.hasMore,
      nextCursor: page.nextCursor,
      after: a.cursor,
    }),
    totalCount: () => accounts.countFills(query),
  };
}

builder.queryFields((t) => ({
  fills: t.field({
    type: FillConnectionRef,
    description:
      "Every user's fills of a window of at most a day (the allFills /info type, `/fills`): newest first, fills of " +
      'one time in execution order; `endTime` defaults to a day after `startTime`; `after` is an endCursor',
    args: ALL_FILL_PAGE.args(t),
    listSize: { slicingArguments: ['first'], sizedFields: ['edges'], requireOneSlicingArgument: false },
    resolve: (_r, a, ctx, info) =>
      fillsConnection(
        ctx.accounts,
        {},
        { ...ALL_FILL_PAGE.parse(a, 'graphql'), aggregateByTime: false },
        selectedFieldNames(info),
      ),
  }),
}));
