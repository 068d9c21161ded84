// The event bus between ingest and the live parts (books, candles, subscriptions). In-process by default: one
// Node process hosts every part. Items are the same row types the tables hold (db/rows/), delivered in batches
// in the order they were committed.
import type {
  FillRow,
  FundingPaymentRow,
  LedgerUpdateRow,
  LiquidationRow,
  OrderStatusRow,
  TwapStatusRow,
} from '../db/rows/accounts.ts';
import type { BackstopTransferRow, EvmBlockRow, LedgerTransferRow, TokenTransferRow } from '../db/rows/evm.ts';
import type { Hip4FillRow } from '../db/rows/hip4.ts';
import type { AssetCtxRow, BookDiffRow, ReserveSampleRow, TradeRow } from '../db/rows/markets.ts';

export interface Hip4RegistryEvent {
  block_number: number;
  time: number;
  kind: string; // VenueRegistered | QuestionRegistered | OutcomeRegistered | OutcomeSettled | QuestionSettled
  data: Record<string, unknown>;
}

/** Misc events we store nowhere yet (staking, validator rewards...), kept live for whoever wants them. */
export interface OtherMiscEvent {
  block_number: number;
  time: number;
  hash: string;
  kind: string;
  data: unknown;
}

export type Topics = {
  fills: FillRow;
  trades: TradeRow;
  orderStatuses: OrderStatusRow;
  bookDiffs: BookDiffRow;
  twapStatuses: TwapStatusRow;
  fundingPayments: FundingPaymentRow;
  ledgerUpdates: LedgerUpdateRow;
  ledgerTransfers: LedgerTransferRow;
  liquidations: LiquidationRow;
  assetCtxs: AssetCtxRow;
  reserves: ReserveSampleRow;
  hip4Registry: Hip4RegistryEvent;
  hip4Fills: Hip4FillRow;
  evmBlocks: EvmBlockRow;
  evmTransfers: TokenTransferRow;
  backstopTransfers: BackstopTransferRow;
  otherMisc: OtherMiscEvent;
};

export type Topic = keyof Topics;

/** Topic name → item type; items travel in batches. */
export type TopicMap = { [topic: string]: unknown };
export type Handler<M extends TopicMap, T extends keyof M> = (items: readonly M[T][]) => void;

export interface EventBus<M extends TopicMap = Topics> {
  publish<T extends keyof M & string>(topic: T, items: readonly M[T][]): void;
  /** Returns the function that unsubscribes. */
  subscribe<T extends keyof M & string>(topic: T, handler: Handler<M, T>): () => void;
}

/** Synchronous fan-out inside one process; also used by the domain services for their own live events. */
export class InProcessBus<M extends TopicMap = Topics> implements EventBus<M> {
  private readonly handlers = new Map<keyof M, Set<Handler<M, keyof M>>>();

  constructor(private readonly onHandlerError: (err: unknown, topic: string) => void = logHandlerError) {}

  publish<T extends keyof M & string>(topic: T, items: readonly M[T][]): void {
    const set = this.handlers.get(topic);
    if (!set || items.length === 0) return;
    for (const handler of set) {
      // A failing subscriber must not stop the publisher nor the other subscribers.
      try {
        (handler as Handler<M, T>)(items);
      } catch (err) {
        this.onHandlerError(err, topic);
      }
    }
  }

  subscribe<T extends keyof M & string>(topic: T, handler: Handler<M, T>): () => void {
    let set = this.handlers.get(topic);
    if (!set) {
      set = new Set();
      this.handlers.set(topic, set);
    }
    set.add(handler as Handler<M, keyof M>);
    return () => set.delete(handler as Handler<M, keyof M>);
  }

  /** How many handlers follow a topic now. */
  listeners(topic: keyof M & string): number {
    return this.handlers.get(topic)?.size ?? 0;
  }
}

function logHandlerError(err: unknown, topic: string): void {
  console.error(`event bus: a ${topic} subscriber failed: ${err instanceof Error ? err.message : String(err)}`);
}
