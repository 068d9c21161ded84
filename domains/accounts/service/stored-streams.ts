// The accounts domain's stored streams (kit/resume.ts): the per-user histories and liquidations as the live streams
// of streams.ts send them, each also read back from its table, so that a subscriber resumes from any position the
// store holds and a window of them replays. Each part selects rows as its live stream does.

import type pg from 'pg';
import {
  type FillRow,
  type FundingPaymentRow,
  fillsTable,
  fundingPaymentsTable,
  type LedgerUpdateRow,
  type LiquidationRow,
  ledgerUpdatesTable,
  liquidationsTable,
  type OrderStatusRow,
  orderStatusesTable,
} from '../../../db/rows/accounts.ts';
import type { EventSource, TopicMap } from '../../../events/bus.ts';
import { type BlockRow, blockOrderedReader, type StoredStream, storedPart } from '../../../kit/resume.ts';
import type { Address } from '../../../platform/fields.ts';
import { toWireFill, type WireFill } from './fill-fields.ts';
import { toWsFunding, type WsFunding } from './funding.ts';
import type { LiquidationStreamInput } from './inputs.ts';
import type { LedgerUpdate } from './ledger.ts';
import { liquidationsMatching, toWsLiquidation } from './liquidations.ts';
import { isNonUserCancel, toLedgerUpdate, type UserEvent } from './streams.ts';
import { aggregateFillsByTime } from './wire-fill.ts';

const columnsOf = (t: { columns: readonly string[] }) => t.columns.join(', ');

/** A liquidation with the liquidated account's value from the ledger update of its transaction, as live. */
const LIQUIDATION_FROM = `(SELECT l.*, (SELECT u.delta->>'accountValue' FROM accounts.ledger_updates u
    WHERE u.address = l.liquidated_user AND u.time = l.time AND u.hash = l.hash AND u.delta_type = 'liquidation'
    LIMIT 1) AS account_value FROM accounts.liquidations l) liquidations`;

export class AccountStoredStreams {
  private readonly source: EventSource<TopicMap>;

  constructor(
    bus: EventSource,
    private readonly pool: pg.Pool,
  ) {
    this.source = bus as unknown as EventSource<TopicMap>;
  }

  /** A user's rows of one table, in the order ingest wrote them inside a block (`order`). */
  private userRows<R extends BlockRow>(from: string, columns: string, address: string, order: string) {
    return blockOrderedReader<R>(this.pool, { from, columns, where: 'address = $1', params: [address], order });
  }

  private fillsPart<E>(address: Address, select: (fills: FillRow[]) => readonly E[]) {
    return storedPart<E, FillRow>({
      source: this.source,
      topic: 'fills',
      dataset: 'fills',
      select: (rows) => {
        const mine = rows.filter((r) => r.address === address);
        return mine.length ? select(mine) : [];
      },
      ...this.userRows<FillRow>('accounts.fills', columnsOf(fillsTable), address, 'event_index, tid'),
    });
  }

  private fundingPart<E>(address: Address, select: (rows: FundingPaymentRow[]) => readonly E[]) {
    return storedPart<E, FundingPaymentRow>({
      source: this.source,
      topic: 'fundingPayments',
      dataset: 'funding',
      select: (rows) => {
        const mine = rows.filter((r) => r.address === address);
        return mine.length ? select(mine) : [];
      },
      ...this.userRows<FundingPaymentRow>(
        'accounts.funding_payments',
        columnsOf(fundingPaymentsTable),
        address,
        'coin',
      ),
    });
  }

  private orderStatusPart<E>(address: Address, select: (rows: OrderStatusRow[]) => readonly E[]) {
    return storedPart<E, OrderStatusRow>({
      source: this.source,
      topic: 'orderStatuses',
      dataset: 'orders',
      select: (rows) => {
        const mine = rows.filter((r) => r.address === address);
        return mine.length ? select(mine) : [];
      },
      ...this.userRows<OrderStatusRow>(
        'accounts.order_statuses',
        columnsOf(orderStatusesTable),
        address,
        'oid, status',
      ),
    });
  }

  private liquidationPart<E>(filter: LiquidationStreamInput, select: (rows: LiquidationRow[]) => readonly E[]) {
    const matches = liquidationsMatching(filter);
    const user = filter.user;
    const columns = `${columnsOf(liquidationsTable)}, account_value`;
    return storedPart<E, LiquidationRow>({
      source: this.source,
      topic: 'liquidations',
      dataset: 'liquidations',
      select: (rows) => {
        const mine = rows.filter(matches);
        return mine.length ? select(mine) : [];
      },
      // A user's own: either side; otherwise every liquidation, filtered as live ones are.
      ...blockOrderedReader<LiquidationRow>(this.pool, {
        from: LIQUIDATION_FROM,
        columns,
        where: user ? '(liquidated_user = $1 OR liquidator = $1)' : '',
        params: user ? [user] : [],
        order: 'tid',
      }),
    });
  }

  /** userFills: the user's fills, one batch per block (merged per crossing order with aggregateByTime). */
  userFills(user: Address, opts: { aggregateByTime?: boolean } = {}): StoredStream<WireFill[]> {
    const aggregate = opts.aggregateByTime === true;
    return {
      parts: [
        this.fillsPart(user, (rows) => [aggregate ? aggregateFillsByTime(rows.map(toWireFill)) : rows.map(toWireFill)]),
      ],
    };
  }

  userFundings(user: Address): StoredStream<WsFunding[]> {
    return { parts: [this.fundingPart(user, (rows) => [rows.map(toWsFunding)])] };
  }

  userNonFundingLedgerUpdates(address: Address): StoredStream<LedgerUpdate[]> {
    return {
      parts: [
        storedPart<LedgerUpdate[], LedgerUpdateRow>({
          source: this.source,
          topic: 'ledgerUpdates',
          dataset: 'ledger',
          select: (rows) => {
            const mine = rows.filter((r) => r.address === address);
            return mine.length ? [mine.map(toLedgerUpdate)] : [];
          },
          ...this.userRows<LedgerUpdateRow>(
            'accounts.ledger_updates',
            columnsOf(ledgerUpdatesTable),
            address,
            'hash, delta_type',
          ),
        }),
      ],
    };
  }

  orderUpdates(user: Address): StoredStream<OrderStatusRow[]> {
    return { parts: [this.orderStatusPart(user, (rows) => [rows])] };
  }

  /** userEvents: fills, funding payments, liquidations on either side and the exchange's cancels, as live. */
  userEvents(user: Address): StoredStream<UserEvent> {
    const address = user;
    return {
      parts: [
        this.fillsPart<UserEvent>(user, (rows) => [{ fills: rows.map(toWireFill) }]),
        this.fundingPart<UserEvent>(user, (rows) => rows.map((r) => ({ funding: toWsFunding(r) }))),
        this.liquidationPart<UserEvent>({ user: address }, (rows) =>
          rows.map((r) => ({ liquidation: toWsLiquidation(r) })),
        ),
        this.orderStatusPart<UserEvent>(user, (rows) => {
          const canceled = rows
            .filter((r) => isNonUserCancel(r.status))
            .map((r) => ({ coin: r.coin, oid: r.oid, status: r.status }));
          return canceled.length ? [{ nonUserCancel: canceled }] : [];
        }),
      ],
    };
  }

  /** The liquidations channel: those every given filter accepts, one batch per block. */
  liquidations(filter: LiquidationStreamInput): StoredStream<LiquidationRow[]> {
    return { parts: [this.liquidationPart(filter, (rows) => [rows])] };
  }
}
