// The accounts domain's live streams, each defined once with its rules (whose rows, how they are grouped, what a
// userEvents frame holds, which cancels are not the user's) and, for the per-user histories, the snapshot a
// transport that sends one (/ws) starts from. GraphQL subscriptions and /ws channels adapt these.

import type pg from 'pg';
import type { LedgerUpdateRow, LiquidationRow, OrderStatusRow } from '../../../db/rows/accounts.ts';
import type { EventSource, Topics } from '../../../events/bus.ts';
import { mergedStreams, type ResumableStoredStream, type ResumableStream, topicStream } from '../../../kit/live.ts';
import type { Address } from '../../../platform/fields.ts';
import { sortedJson } from '../../../platform/json-text.ts';
import { toWireFill, type WireFill } from './fill-fields.ts';
import { userFills } from './fills.ts';
import { recentFundings, toWsFunding, type WsFunding } from './funding.ts';
import type { LiquidationStreamInput } from './inputs.ts';
import { type LedgerUpdate, recentLedgerUpdates } from './ledger.ts';
import { liquidationsMatching, toWsLiquidation, type WsLiquidation } from './liquidations.ts';
import { aggregateFillsByTime } from './wire-fill.ts';

/** An order the exchange canceled on the user's behalf (margin, liquidation, self-trade...). */
export interface NonUserCancel {
  coin: string;
  oid: number;
  status: string;
}

/** One userEvents event: exactly one field is set. */
export interface UserEvent {
  fills?: WireFill[];
  funding?: WsFunding;
  liquidation?: WsLiquidation;
  nonUserCancel?: NonUserCancel[];
}

/** The snapshot size of userFundings and userNonFundingLedgerUpdates (spec §8). */
export const HISTORY_SNAPSHOT_SIZE = 100;

/** Every "…Canceled" status is the exchange's doing; "canceled" alone is the user's. */
export const isNonUserCancel = (status: string) => status !== 'canceled' && status.endsWith('Canceled');

/** A live ledger row in the stored shape: its delta with the node's `type` tag. */
export const toLedgerUpdate = (r: LedgerUpdateRow): LedgerUpdate => ({
  time: r.time,
  hash: r.hash,
  delta: { ...r.delta, type: r.delta_type },
});

/** The topics whose rows belong to one account (`address`). */
type AccountTopic = { [T in keyof Topics]: Topics[T] extends { address: string } ? T : never }[keyof Topics];

export class AccountStreams {
  constructor(
    private readonly bus: EventSource,
    private readonly pool: pg.Pool,
  ) {}

  /** `user`'s rows of a topic, one batch per published batch that has any, shaped by `toBatch`. */
  private batches<T extends AccountTopic, R>(topic: T, address: Address, toBatch: (rows: Topics[T][]) => R[]) {
    return topicStream(
      this.bus,
      topic,
      (rows) => {
        const mine = rows.filter((r) => r.address === address);
        return mine.length ? [toBatch(mine)] : [];
      },
      address,
    );
  }

  /**
   * The user's fills, one batch per block, merged per crossing order with aggregateByTime; the snapshot is the most
   * recent fills (aggregated by the query itself, which reads the whole group at the cut).
   */
  userFills(user: Address, opts: { aggregateByTime?: boolean } = {}): ResumableStoredStream<WireFill> {
    const aggregate = opts.aggregateByTime === true;
    return {
      ...this.batches('fills', user, (rows) =>
        aggregate ? aggregateFillsByTime(rows.map(toWireFill)) : rows.map(toWireFill),
      ),
      snapshot: () => userFills(this.pool, { user, aggregateByTime: aggregate }),
      // An aggregated fill keeps only its first part's tid: its parts share the order and the time instead (they
      // are stored in one block).
      key: aggregate ? (f) => `${f.oid} ${f.time}` : (f) => `${f.tid} ${f.oid}`,
    };
  }

  /** The user's funding payments, one batch per block; the snapshot is the most recent ones. */
  userFundings(user: Address): ResumableStoredStream<WsFunding> {
    return {
      ...this.batches('fundingPayments', user, (rows) => rows.map(toWsFunding)),
      snapshot: () => recentFundings(this.pool, user, HISTORY_SNAPSHOT_SIZE),
      // One payment per user, coin and settlement.
      key: (f) => `${f.time} ${f.coin}`,
    };
  }

  /** The user's non-funding ledger updates, one batch per block; the snapshot is the most recent ones. */
  userNonFundingLedgerUpdates(user: Address): ResumableStoredStream<LedgerUpdate> {
    return {
      ...this.batches('ledgerUpdates', user, (rows) => rows.map(toLedgerUpdate)),
      snapshot: () => recentLedgerUpdates(this.pool, user, HISTORY_SNAPSHOT_SIZE),
      // Stored deltas come back from jsonb with their keys reordered: compare them with keys sorted.
      key: (u) => `${u.time} ${u.hash} ${sortedJson(u.delta)}`,
    };
  }

  /** The user's order status changes, one batch per block. */
  orderUpdates(user: Address): ResumableStream<OrderStatusRow[]> {
    return this.batches('orderStatuses', user, (rows) => rows);
  }

  /**
   * The user's events in the order they are published: fills (one batch per block), funding payments and
   * liquidations on either side (one event each), and the orders the exchange canceled (one batch per block).
   */
  userEvents(address: Address): ResumableStream<UserEvent> {
    const involved = liquidationsMatching({ user: address });
    const { bus } = this;
    const mine = <R extends { address: string }>(rows: readonly R[]) => rows.filter((r) => r.address === address);
    return mergedStreams<UserEvent>([
      topicStream(
        bus,
        'fills',
        (rows) => {
          const fills = mine(rows).map(toWireFill);
          return fills.length ? [{ fills }] : [];
        },
        address,
      ),
      topicStream(bus, 'fundingPayments', (rows) => mine(rows).map((r) => ({ funding: toWsFunding(r) })), address),
      topicStream(bus, 'liquidations', (rows) =>
        rows.filter(involved).map((r) => ({ liquidation: toWsLiquidation(r) })),
      ),
      topicStream(
        bus,
        'orderStatuses',
        (rows) => {
          const canceled = mine(rows)
            .filter((r) => isNonUserCancel(r.status))
            .map((r) => ({ coin: r.coin, oid: r.oid, status: r.status }));
          return canceled.length ? [{ nonUserCancel: canceled }] : [];
        },
        address,
      ),
    ]);
  }

  /** Liquidations accepted by every given filter, one batch per block. */
  liquidations(filter: LiquidationStreamInput): ResumableStream<LiquidationRow[]> {
    const matches = liquidationsMatching(filter);
    return topicStream(this.bus, 'liquidations', (rows) => {
      const mine = rows.filter(matches);
      return mine.length ? [mine] : [];
    });
  }
}
