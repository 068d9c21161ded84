// The accounts domain service: the live part (recent order statuses from the event bus, so that orderStatus answers
// from live state first) over the stored history functions of this folder. The accounts subgraph and compat-rest
// both call it; live events are the ingest bus's own topics (fills, orderStatuses, fundingPayments, ...).
import type pg from 'pg';
import type { LiquidationRow, OrderStatusRow } from '../../../db/rows/accounts.ts';
import { type EventBus, InProcessBus, type Topics } from '../../../events/bus.ts';
import type { Upstream } from '../../../platform/upstream.ts';
import { LiquidationJoin } from './liquidations.ts';
import {
  type FrontendOpenOrder,
  type OrderStatusAnswer,
  type OrderStatusQuery,
  orderStatus,
  toOrder,
} from './orders.ts';
import { type AccountState, accountState, type Leverage } from './state.ts';
import { AccountStreams } from './streams.ts';

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
  /** How long a live liquidation fill waits for its ledger update (the account value); default 1 s. */
  liquidationGraceMs?: number;
}

export class AccountsService {
  readonly pool: pg.Pool;
  /**
   * The ingest bus, except that `liquidations` carries each liquidation fill with the liquidated account's value
   * (LiquidationJoin), published from this process only.
   */
  readonly bus: EventBus;
  /** Every live stream of the domain (GraphQL subscriptions and /ws channels adapt them). */
  readonly streams: AccountStreams;
  readonly now: () => number;
  private readonly upstream: Upstream;
  /** `user oid` → latest live status row; Map order = recency, so the oldest is evicted first. */
  private readonly statuses = new Map<string, OrderStatusRow>();
  /** `user cloid` → `user oid`. */
  private readonly cloids = new Map<string, string>();
  private readonly capacity: number;
  private readonly markPx: (coin: string) => string | null;
  private readonly unsubscribe: () => void;
  private readonly liquidations: LiquidationJoin;

  constructor(opts: AccountsServiceOptions) {
    this.pool = opts.pool;
    const source = opts.bus;
    const joined = new InProcessBus<Pick<Topics, 'liquidations'>>();
    this.liquidations = new LiquidationJoin(
      source,
      (rows) => joined.publish('liquidations', rows),
      opts.liquidationGraceMs,
    );
    this.bus = {
      publish: (topic, items) => source.publish(topic, items),
      subscribe: (topic, handler) =>
        topic === 'liquidations'
          ? joined.subscribe('liquidations', handler as (rows: readonly LiquidationRow[]) => void)
          : source.subscribe(topic, handler),
    };
    this.streams = new AccountStreams(this.bus, opts.pool);
    this.upstream = opts.upstream;
    this.now = opts.now ?? Date.now;
    this.capacity = opts.liveStatuses ?? 200_000;
    this.markPx = opts.markPx ?? (() => null);
    this.unsubscribe = opts.bus.subscribe('orderStatuses', (rows) => {
      for (const r of rows) this.remember(r);
    });
  }

  stop(): void {
    this.unsubscribe();
    this.liquidations.stop();
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
    const user = q.user.toLowerCase();
    const liveKey = q.oid !== undefined ? `${user} ${q.oid}` : this.cloids.get(`${user} ${q.cloid?.toLowerCase()}`);
    const live = liveKey ? this.statuses.get(liveKey) : undefined;
    if (live) return { status: 'order', order: toOrder(live) };
    const open = await this.openOrderOnNode(user, q).catch(() => null);
    if (open) return { status: 'order', order: { order: open, status: 'open', statusTimestamp: open.timestamp } };
    return orderStatus(this.pool, { ...q, user });
  }

  private async openOrderOnNode(user: string, q: OrderStatusQuery): Promise<FrontendOpenOrder | null> {
    const orders = await this.upstream.json<FrontendOpenOrder[]>({ type: 'frontendOpenOrders', user });
    const cloid = q.cloid?.toLowerCase();
    const oid = q.oid === undefined ? undefined : String(q.oid);
    return orders.find((o) => (oid !== undefined ? String(o.oid) === oid : o.cloid?.toLowerCase() === cloid)) ?? null;
  }

  /** The latest perp account state (state.ts), valued at `markPx`, with the leverage the node reports. */
  async accountState(user: string): Promise<AccountState> {
    const address = user.toLowerCase();
    return accountState(this.pool, {
      user: address,
      markPx: this.markPx,
      leverage: this.nodeLeverage(address),
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
}
