// The accounts domain service, the one façade of this folder: the live part (recent order statuses from the event
// bus, so that orderStatus answers from live state first) and the stored history, with its defaults and input rules.
// The accounts subgraph and compat-rest call only this class (and import only the types and constants re-exported
// here); the pool is its own. Live events are the ingest bus's own topics (fills, orderStatuses, fundingPayments...).
import type pg from 'pg';
import type { OrderStatusRow } from '../../../db/rows/accounts.ts';
import {
  derivedTopic,
  type EventBus,
  type EventSource,
  type Handler,
  InProcessBus,
  type Topics,
} from '../../../events/bus.ts';
import type { Page } from '../../../kit/page.ts';
import { type Address, FieldError } from '../../../platform/fields.ts';
import type { Upstream } from '../../../platform/upstream.ts';
import { borrowLendUserState, type ReservePricing } from './borrow-lend.ts';
import { type AccountFill, type FillColumn, type StoredFill, toWireFill } from './fill-fields.ts';
import {
  type AllFillsQuery,
  allFills,
  allFillsEnd,
  builderFeeRevenues,
  countFills,
  type FillPageQuery,
  type FillRowsQuery,
  fillCursor,
  fillPage,
  fillRows,
} from './fill-pages.ts';
import { fillSummary } from './fill-summary.ts';
import { MAX_WIRE_FILLS, type UserFillsQuery, userFills, userFillsJson, userFillsList } from './fills.ts';
import { recentFundings, userFunding } from './funding.ts';
import { type HistoryPageQuery, MAX_HISTORY_PAGE } from './history-page.ts';
import { recentLedgerUpdates, userNonFundingLedgerUpdates } from './ledger.ts';
import { type LedgerEventsQuery, ledgerEvents } from './ledger-events.ts';
import { FILL_ROWS_DEFAULT_LIMIT, LIQUIDATIONS_DEFAULT_LIMIT } from './limits.ts';
import { LiquidationJoin, liquidationsOf } from './liquidations.ts';
import {
  type FrontendOpenOrder,
  type HistoricalOrdersQuery,
  historicalOrders,
  historicalOrdersJson,
  type OrderStatusAnswer,
  type OrderStatusQuery,
  orderStatus,
  type StatusColumn,
  statusHistories,
  toOrder,
} from './orders.ts';
import { type AccountState, accountState, type Leverage } from './state.ts';
import { AccountStoredStreams } from './stored-streams.ts';
import { AccountStreams } from './streams.ts';
import { type TwapSliceFillsQuery, twapHistory, twapSliceFills } from './twaps.ts';

/** A page of stored fills (wireFillPage), with the count of the fills its filters match. */
export type WireFillPage = Page<AccountFill> & { count(): Promise<number | null> };

/** A query whose `limit` the service defaults (and checks against its cap). */
type WithOptionalLimit<Q extends { limit?: number }> = Omit<Q, 'limit'> & { limit?: number };

/** The part of the node's clearinghouseState read here: each position's leverage setting. */
interface NodeClearinghouseState {
  assetPositions?: { position: { coin: string; leverage?: { type?: string; value?: unknown } } }[];
}

export interface AccountsServiceOptions {
  pool: pg.Pool;
  upstream: Upstream;
  bus: EventBus;
  now?: () => number;
  /** Order statuses kept in memory for orderStatus (the most recent ones). */
  liveStatuses?: number;
  /** Live prices positions are valued at (the stack gives the markets service's mids); else the last fill price. */
  markPx?: (coin: string) => string | null;
  /** The reserves' latest oracle prices and loan-to-value ratios (the markets service's); else none. */
  reserves?: () => Promise<ReservePricing[]>;
  /** How long a live liquidation fill waits for its ledger update (the account value); default 1 s. */
  liquidationGraceMs?: number;
}

/** One spot balance as the node answers spotClearinghouseState. */
export interface SpotBalance {
  coin: string;
  token: number;
  total: string;
  hold: string;
  entryNtl: string;
}

export class AccountsService {
  private readonly pool: pg.Pool;
  /**
   * The ingest bus, except that `liquidations` carries each liquidation fill with the liquidated account's value
   * (LiquidationJoin), published from this process only.
   */
  readonly bus: EventSource;
  /** Every live stream of the domain (GraphQL subscriptions and /ws channels adapt them). */
  readonly streams: AccountStreams;
  /** The same streams read back from the store too: resumed from any stored position, or replayed (kit/resume.ts). */
  readonly stored: AccountStoredStreams;
  readonly now: () => number;
  private readonly upstream: Upstream;
  /** `user oid` → latest live status row; Map order = recency, so the oldest is evicted first. */
  private readonly statuses = new Map<string, OrderStatusRow>();
  /** `user cloid` → `user oid`. */
  private readonly cloids = new Map<string, string>();
  private readonly capacity: number;
  private readonly markPx: (coin: string) => string | null;
  private readonly reserves: () => Promise<ReservePricing[]>;
  private readonly unsubscribe: () => void;
  private readonly liquidationJoin: LiquidationJoin;

  constructor(opts: AccountsServiceOptions) {
    this.pool = opts.pool;
    const source = opts.bus;
    // The joined fills, numbered with the seq of the batch they came in (subscribers' cursors stay the source's).
    const joined = new InProcessBus<Pick<Topics, 'liquidations'>>({ retainMs: 0 });
    const join = new LiquidationJoin(
      source,
      (rows, seq) => joined.deliver('liquidations', rows, seq),
      opts.liquidationGraceMs,
    );
    this.liquidationJoin = join;
    const liquidations = derivedTopic(
      joined,
      'liquidations',
      source,
      'liquidations',
      (rows) => rows.map((r) => join.joined(r)),
      () => join.position(source.position('liquidations')),
    );
    // Replayed fills carry the account value this process still knows (it keeps them a minute).
    this.bus = {
      epoch: source.epoch,
      subscribe: (topic, handler) =>
        topic === 'liquidations'
          ? liquidations.subscribe('liquidations', handler as Handler<Pick<Topics, 'liquidations'>, 'liquidations'>)
          : source.subscribe(topic, handler),
      position: (topic) => (topic === 'liquidations' ? liquidations.position('liquidations') : source.position(topic)),
      replay: (topic, after, onBatch, key) =>
        topic === 'liquidations'
          ? liquidations.replay(
              'liquidations',
              after,
              onBatch as Handler<Pick<Topics, 'liquidations'>, 'liquidations'>,
              key,
            )
          : source.replay(topic, after, onBatch, key),
    };
    this.streams = new AccountStreams(this.bus, opts.pool);
    this.stored = new AccountStoredStreams(this.bus, opts.pool);
    this.upstream = opts.upstream;
    this.now = opts.now ?? Date.now;
    this.capacity = opts.liveStatuses ?? 200_000;
    this.markPx = opts.markPx ?? (() => null);
    this.reserves = opts.reserves ?? (async () => []);
    this.unsubscribe = opts.bus.subscribe('orderStatuses', (rows) => {
      for (const r of rows) this.remember(r);
    });
  }

  stop(): void {
    this.unsubscribe();
    this.liquidationJoin.stop();
  }

  private remember(r: OrderStatusRow): void {
    const key = `${r.address} ${r.oid}`;
    this.statuses.delete(key);
    this.statuses.set(key, r);
    if (r.cloid) this.cloids.set(`${r.address} ${r.cloid}`, key);
    if (this.statuses.size > this.capacity) {
      const oldest = this.statuses.keys().next().value as string;
      const gone = this.statuses.get(oldest);
      this.statuses.delete(oldest);
      if (gone?.cloid) this.cloids.delete(`${gone.address} ${gone.cloid}`);
    }
  }

  /**
   * orderStatus: live state first, then the node's open orders, then indexed history (spec §4.1); `unknownOid`
   * when none of them knows the order.
   */
  async orderStatus(q: OrderStatusQuery): Promise<OrderStatusAnswer> {
    // The user as ORDER_STATUS read it (lowercase), the cloid as orderRef did.
    const { user } = q;
    const liveKey = q.oid !== undefined ? `${user} ${q.oid}` : this.cloids.get(`${user} ${q.cloid}`);
    const live = liveKey ? this.statuses.get(liveKey) : undefined;
    if (live) return { status: 'order', order: toOrder(live) };
    const open = await this.openOrderOnNode(user, q).catch(() => null);
    if (open) return { status: 'order', order: { order: open, status: 'open', statusTimestamp: open.timestamp } };
    return orderStatus(this.pool, { ...q, user });
  }

  /**
   * The node's answer to `{type, ...fields}` (a user's state it alone keeps: open orders, fees, sub-accounts...),
   * under its type: `{ [type]: answer }` (the answer may be null: no sub-accounts).
   */
  async nodeState(type: string, fields: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    return { [type]: await this.upstream.json({ type, ...fields }) };
  }

  /** clearinghouseState of several users on one perp dex, in the order asked. */
  async clearinghouseStates(
    users: readonly string[],
    dex: string,
  ): Promise<{ user: string; clearinghouseState: unknown }[]> {
    const states = await Promise.all(
      users.map((user) => this.upstream.json({ type: 'clearinghouseState', user, dex })),
    );
    return users.map((user, i) => ({ user, clearinghouseState: states[i] }));
  }

  /** The user's resting orders now, as the node answers frontendOpenOrders (it alone knows the live book). */
  openOrders(user: string): Promise<FrontendOpenOrder[]> {
    return this.upstream.json<FrontendOpenOrder[]>({ type: 'frontendOpenOrders', user });
  }

  /** The user's spot balances now, as the node answers spotClearinghouseState. */
  async spotBalances(user: string): Promise<SpotBalance[]> {
    const state = await this.upstream.json<{ balances: SpotBalance[] }>({
      type: 'spotClearinghouseState',
      user,
    });
    return state.balances;
  }

  private async openOrderOnNode(user: string, q: OrderStatusQuery): Promise<FrontendOpenOrder | null> {
    const orders = await this.openOrders(user);
    const cloid = q.cloid?.toLowerCase();
    const oid = q.oid === undefined ? undefined : String(q.oid);
    return orders.find((o) => (oid !== undefined ? String(o.oid) === oid : o.cloid?.toLowerCase() === cloid)) ?? null;
  }

  /** The latest perp account state (state.ts), valued at `markPx`, with the leverage the node reports. */
  async accountState(user: Address): Promise<AccountState> {
    return accountState(this.pool, {
      user,
      markPx: this.markPx,
      leverage: this.nodeLeverage(user),
      now: this.now(),
    });
  }

  /**
   * The user's leverage per coin from the node's clearinghouseState (the node files carry none). Empty when the
   * node does not answer within 500 ms: the state is then served without leverage rather than late.
   */
  private async nodeLeverage(user: string): Promise<Map<string, Leverage>> {
    const state = await this.upstream
      .json<NodeClearinghouseState>({ type: 'clearinghouseState', user }, 0, 500)
      .catch(() => null);
    const leverage = new Map<string, Leverage>();
    for (const { position: p } of state?.assetPositions ?? []) {
      const { type, value } = p?.leverage ?? {};
      if ((type === 'cross' || type === 'isolated') && typeof value === 'number') leverage.set(p.coin, { type, value });
    }
    return leverage;
  }

  // ---- stored history ----
  // What the edges read, as the input definitions (inputs.ts) checked it: bounds, defaults and lowercase addresses
  // are not checked again here; what a definition cannot state (a cursor's parts, allFills' day) is.

  /** Compact fill rows (spec §2.3), keyset-paged; `limit` default FILL_ROWS_DEFAULT_LIMIT. */
  fillRows(q: WithOptionalLimit<FillRowsQuery>) {
    return fillRows(this.pool, { ...q, limit: q.limit ?? FILL_ROWS_DEFAULT_LIMIT });
  }

  /** allFills: every user's compact fill rows of a window of at most a day. */
  allFills(q: WithOptionalLimit<AllFillsQuery>) {
    return allFills(this.pool, { ...q, limit: q.limit ?? FILL_ROWS_DEFAULT_LIMIT });
  }

  /**
   * A page of stored fills, newest or oldest first, up to MAX_WIRE_FILLS rows (merged by aggregateByTime when
   * asked), `columns` only if given: a user's, a builder's, or (neither) every user's of a window of at most a day.
   */
  fillPage(q: FillPageQuery, columns: ReadonlySet<FillColumn> | undefined) {
    if (q.user === undefined && q.builder === undefined) {
      if (q.startTime === undefined) throw new FieldError("startTime: required without a user (every user's fills)");
      q = { ...q, endTime: allFillsEnd({ startTime: q.startTime, endTime: q.endTime }) };
    }
    return fillPage(this.pool, q, { maxLimit: MAX_WIRE_FILLS, columns });
  }

  /**
   * A page of stored fills as wire fills with their order type, account and builder, each with its cursor, newest
   * first (fills of one time in execution order): a user's, a builder's, or every user's of a window of at most a
   * day (the GraphQL connections). With aggregateByTime the partial fills of a crossing order are merged, a merged
   * fill keeping its first part's cursor (an approximate resume point), and no order type is looked up. `count()`
   * counts the fills matching the filters, not the cursor (null merged). With `columns` (not merged), only those are
   * read: the fills' other fields are absent.
   */
  async wireFillPage(q: FillPageQuery, columns?: ReadonlySet<FillColumn>): Promise<WireFillPage> {
    if (q.aggregateByTime) {
      const page = await this.fillPage(q, undefined);
      // A merged fill keeps its first part's (time, tid): that part's cursor and builder.
      const parts = new Map(page.rows.map((r) => [`${r.time}:${r.tid}`, r]));
      const rows: AccountFill[] = page.fills ?? [];
      const cursors = rows.map((f) => {
        const part = parts.get(`${f.time}:${f.tid}`);
        f.address = q.user;
        f.builder = part?.builder ?? null;
        return part ? fillCursor(part) : '';
      });
      return { rows, cursors, hasMore: page.hasMore, nextCursor: page.nextCursor, count: async () => null };
    }
    const page = await this.fillPage(q, columns);
    // Assigned, not spread into a copy: spreading 2 000 fills took 5.7 ms, assigning 0.06 ms. The fields whose
    // columns were not read come out undefined.
    const rows = page.rows.map((r) => {
      const fill: AccountFill = toWireFill(r as StoredFill);
      fill.orderType = r.order_type ?? null;
      fill.address = r.address;
      fill.builder = r.builder;
      return fill;
    });
    const cursors = page.rows.map((r) => fillCursor(r as StoredFill));
    return { rows, cursors, hasMore: page.hasMore, nextCursor: page.nextCursor, count: () => this.countFills(q) };
  }

  /** What each builder earned on the fills routed through it in a window (fills, volume, builder fees), at once. */
  builderFeeRevenues(q: { builders: readonly string[]; startTime?: number; endTime?: number }) {
    return builderFeeRevenues(this.pool, { ...q, builders: q.builders.map((b) => b.toLowerCase()) });
  }

  countFills(q: Pick<FillRowsQuery, 'user' | 'coin' | 'side' | 'startTime' | 'endTime'>) {
    return countFills(this.pool, q);
  }

  /**
   * userFills (with startTime, userFillsByTime): the user's newest MAX_WIRE_FILLS fills, newest first (the userFills
   * channel's snapshot too).
   */
  userFills(q: UserFillsQuery) {
    return userFills(this.pool, q);
  }

  /** userFills as the exchange's JSON bytes with the number of fills. */
  userFillsList(q: UserFillsQuery) {
    return userFillsList(this.pool, q);
  }

  /** userFills as the exchange's JSON bytes, in chunks to `out` when given. */
  userFillsJson(q: UserFillsQuery, out?: (chunk: Buffer) => void) {
    return userFillsJson(this.pool, q, out);
  }

  twapSliceFills(q: TwapSliceFillsQuery) {
    return twapSliceFills(this.pool, q);
  }

  /** twapHistory: the user's TWAP status changes, oldest first (the newest MAX_TWAP_HISTORY). */
  twapHistory(user: Address) {
    return twapHistory(this.pool, user);
  }

  /** historicalOrders' rows (window mode when a bound or cursor is given), `columns` only if given. */
  historicalOrders(q: Omit<HistoricalOrdersQuery, 'now'>, columns?: ReadonlySet<StatusColumn>) {
    return historicalOrders(this.pool, { ...q, now: this.now() }, columns);
  }

  /** historicalOrders as the exchange's JSON bytes: the paging, and a writer of the rows. */
  historicalOrdersJson(q: Omit<HistoricalOrdersQuery, 'now'>) {
    return historicalOrdersJson(this.pool, { ...q, now: this.now() });
  }

  /** Every stored status of each order (`"user oid"` keys), oldest first. */
  statusHistories(keys: readonly string[]) {
    return statusHistories(this.pool, keys);
  }

  /**
   * userFunding (and accountFunding, /funding/userFunding, User.fundings, accounts_funding_payments): a page of the
   * user's payments, a window's oldest first, else the newest first; `limit` 1 to MAX_HISTORY_PAGE, default the most.
   */
  userFunding(q: WithOptionalLimit<HistoryPageQuery>) {
    return userFunding(this.pool, { ...q, limit: q.limit ?? MAX_HISTORY_PAGE });
  }

  /** The `n` most recent payments, oldest first (the userFundings channel's snapshot). */
  recentFundings(user: Address, n: number) {
    return recentFundings(this.pool, user, n);
  }

  /** userNonFundingLedgerUpdates, on every interface: paged as userFunding, with the same limits. */
  ledgerUpdates(q: WithOptionalLimit<HistoryPageQuery>) {
    return userNonFundingLedgerUpdates(this.pool, { ...q, limit: q.limit ?? MAX_HISTORY_PAGE });
  }

  /** A page of the user's ledger events by type, newest first (the EVM domain's ledger events). */
  ledgerEvents(q: LedgerEventsQuery) {
    return ledgerEvents(this.pool, q);
  }

  /** An address's fill counters over its history, `fills_since` counting those at or after `since`. */
  fillSummary(address: Address, since: number) {
    return fillSummary(this.pool, address, since);
  }

  /** The `n` most recent updates, oldest first (the userNonFundingLedgerUpdates channel's snapshot). */
  recentLedgerUpdates(user: Address, n: number) {
    return recentLedgerUpdates(this.pool, user, n);
  }

  /** Liquidations the user was in, most recent first (LIQUIDATIONS: `limit` 1 to MAX_LIQUIDATIONS). */
  liquidations(q: { user: string; limit?: number }) {
    return liquidationsOf(this.pool, q.user, q.limit ?? LIQUIDATIONS_DEFAULT_LIMIT);
  }

  /** The user's borrow/lend positions, their health priced at the reserves' latest oracle prices and ratios. */
  async borrowLendUserState(user: string) {
    return borrowLendUserState(this.pool, user, await this.reserves());
  }
}
