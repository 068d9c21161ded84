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
import { FieldError } from '../platform/fields.ts';

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

/**
 * Events a publisher did not give the bus (a backfill older than what the bus keeps): subscribers holding state built
 * from those topics re-read it from storage and the node, as at their start.
 */
export interface BusGap {
  /** The ingest stream that skipped them. */
  stream: string;
  topics: string[];
  /** Block times of the first and last skipped batch. */
  from: number;
  until: number;
}

/** The topics ingest publishes: the node's rows as they commit. */
export type NodeTopics = {
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
  gaps: BusGap;
};

/**
 * Topics a domain adds (its writer publishes them): each domain declares its own item types here by declaration
 * merging (`declare module '../../events/bus.ts' { interface DomainTopics { ... } }`) and their keys in its
 * definition's `topics` (kit/domain.ts), which the bus is given at open.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each domain's declaration merging
export interface DomainTopics {}

type EveryTopic = NodeTopics & DomainTopics;
/** Every topic on the bus → its item type: ingest's and the domains'. */
export type Topics = { [T in keyof EveryTopic]: EveryTopic[T] };

export type Topic = keyof Topics;

/** Topic name → item type; items travel in batches. */
export type TopicMap = { [topic: string]: unknown };

/**
 * A batch with its place in the bus's log: `seq` grows with every batch of every topic (the JetStream stream's
 * sequence, or the in-process bus's counter), so a subscriber that knows the last `seq` it saw can be given what
 * came after it (`replay`).
 */
export type Handler<M extends TopicMap, T extends keyof M> = (items: readonly M[T][], seq: number) => void;

/** A position before the oldest batch the log still holds, or from another log: the caller must re-snapshot. */
export class CursorError extends FieldError {
  override readonly name = 'CursorError';
}

/** What subscribers need of a bus: its batches live, and the log behind them. */
export type EventSource<M extends TopicMap = Topics> = Omit<EventBus<M>, 'publish'>;

export interface EventBus<M extends TopicMap = Topics> {
  /**
   * Names the log the `seq` numbers belong to: a process's own in-process log, or one JetStream stream. Positions
   * taken from another epoch (a restarted process, a recreated stream) mean nothing here.
   */
  readonly epoch: string;
  /**
   * The bus stores what it is given (JetStream): a publisher hands it events before committing them, and a repeat
   * after a crash is dropped by the bus.
   */
  readonly durable?: boolean;
  /** How long the bus keeps events: a publisher need not give it events older than this (a backfill's). */
  readonly keepsMs?: number;
  /** In-process: delivered before it returns. JetStream: resolves once the server has stored the batch. */
  publish<T extends keyof M & string>(topic: T, items: readonly M[T][]): void | Promise<void>;
  /** Returns the function that unsubscribes. */
  subscribe<T extends keyof M & string>(topic: T, handler: Handler<M, T>): () => void;
  /**
   * A `seq` up to which every batch of `topic` has been given to this process's subscribers (0: none yet): where a
   * subscriber starting now stands. Batches are delivered in seq order, so it is the last one delivered, of any
   * topic, unless the topic's batches wait somewhere on their way (a join).
   */
  position(topic: keyof M & string): number;
  /**
   * Calls `onBatch` for every batch of `topic` after `after`, in order, up to the log's end when called; CursorError
   * when some of them are no longer held. `key` (a coin, an address) may narrow the batches read to those holding
   * it; they can still hold other keys' items, which the caller filters as it does live batches.
   */
  replay<T extends keyof M & string>(topic: T, after: number, onBatch: Handler<M, T>, key?: string): Promise<void>;
}

export interface InProcessBusOptions {
  /** How long published batches are kept for `replay` (0: none; a service's own derived bus keeps none). */
  retainMs?: number;
  /** At most this many batches kept per topic, whatever their age. */
  retainBatches?: number;
  now?: () => number;
  onHandlerError?: (err: unknown, topic: string) => void;
}

/** Ten minutes of batches: what a client that lost its connection can get back after reconnecting in-process. */
const IN_PROCESS_RETAIN_MS = 10 * 60_000;

type Held<I> = { seq: number; at: number; items: readonly I[] };

/** Synchronous fan-out inside one process; also used by the domain services for their own live events. */
export class InProcessBus<M extends TopicMap = Topics> implements EventBus<M> {
  readonly epoch = `p${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  private readonly handlers = new Map<keyof M, Set<Handler<M, keyof M>>>();
  private readonly held = new Map<keyof M, Held<unknown>[]>();
  /** Per topic: the last seq dropped from `held` (a replay from before it is refused). */
  private readonly dropped = new Map<keyof M, number>();
  /** The last seq numbered here or delivered. */
  private seq = 0;
  private readonly retainMs: number;
  private readonly retainBatches: number;
  private readonly now: () => number;
  private readonly onHandlerError: (err: unknown, topic: string) => void;

  constructor(opts: InProcessBusOptions = {}) {
    this.retainMs = opts.retainMs ?? IN_PROCESS_RETAIN_MS;
    this.retainBatches = opts.retainBatches ?? 100_000;
    this.now = opts.now ?? Date.now;
    this.onHandlerError = opts.onHandlerError ?? logHandlerError;
  }

  publish<T extends keyof M & string>(topic: T, items: readonly M[T][]): void {
    if (items.length === 0) return;
    this.deliver(topic, items, this.seq + 1);
  }

  /** Hands a batch numbered elsewhere (the JetStream adapter's stream sequence) to this process's subscribers. */
  deliver<T extends keyof M & string>(topic: T, items: readonly M[T][], seq: number): void {
    this.advanceTo(seq);
    if (this.retainMs > 0) this.hold(topic, items, seq);
    const set = this.handlers.get(topic);
    if (!set) return;
    for (const handler of set) {
      // A failing subscriber must not stop the publisher nor the other subscribers.
      try {
        (handler as Handler<M, T>)(items, seq);
      } catch (err) {
        this.onHandlerError(err, topic);
      }
    }
  }

  private hold(topic: keyof M, items: readonly unknown[], seq: number): void {
    let list = this.held.get(topic);
    if (!list) {
      list = [];
      this.held.set(topic, list);
    }
    const at = this.now();
    list.push({ seq, at, items });
    let drop = 0;
    while (
      drop < list.length &&
      (list.length - drop > this.retainBatches || (list[drop]?.at ?? at) < at - this.retainMs)
    )
      drop++;
    if (drop) {
      this.dropped.set(topic, list[drop - 1]?.seq ?? 0);
      list.splice(0, drop);
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

  position(): number {
    return this.seq;
  }

  /** Moves `position` on without a batch: nothing before `seq` will be delivered here. */
  advanceTo(seq: number): void {
    this.seq = Math.max(this.seq, seq);
  }

  async replay<T extends keyof M & string>(topic: T, after: number, onBatch: Handler<M, T>): Promise<void> {
    if (after < (this.dropped.get(topic) ?? 0)) throw expired(topic, this.retainMs);
    const list = (this.held.get(topic) ?? []) as Held<M[T]>[];
    // The first held batch after `after` (seqs grow along the list).
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((list[mid]?.seq ?? 0) <= after) lo = mid + 1;
      else hi = mid;
    }
    for (const batch of list.slice(lo)) onBatch(batch.items, batch.seq);
  }

  /** How many handlers follow a topic now. */
  listeners(topic: keyof M & string): number {
    return this.handlers.get(topic)?.size ?? 0;
  }
}

/**
 * One topic of a process's own bus (`own`) whose batches are those of another bus's topic, mapped once and delivered
 * with the source's seq (`own.deliver`): as a source, it is followed on `own` and replayed from the source's log
 * through the same `map`, so its subscribers resume like the source's.
 */
export function derivedTopic<
  M extends TopicMap,
  T extends keyof M & string,
  S extends TopicMap,
  U extends keyof S & string,
>(
  own: InProcessBus<M>,
  topic: T,
  source: EventSource<S>,
  sourceTopic: U,
  map: (items: readonly S[U][]) => readonly M[T][],
  /** Where the topic's subscribers stand when its batches wait on their way (a join); the source's otherwise. */
  position: () => number = () => source.position(sourceTopic),
): EventSource<Pick<M, T>> {
  return {
    epoch: source.epoch,
    subscribe: (_topic, handler) => own.subscribe(topic, handler as unknown as Handler<M, T>),
    position,
    replay: (_topic, after, onBatch, key) =>
      source.replay(sourceTopic, after, (items, seq) => (onBatch as unknown as Handler<M, T>)(map(items), seq), key),
  };
}

/** The CursorError of a position older than what the log holds. */
export function expired(topic: string, retainMs: number): CursorError {
  return new CursorError(
    `after: ${topic} events after the cursor are no longer held (the log keeps ${Math.round(retainMs / 60_000)} min): ` +
      'subscribe without a cursor and re-read the snapshot',
  );
}

function logHandlerError(err: unknown, topic: string): void {
  console.error(`event bus: a ${topic} subscriber failed: ${err instanceof Error ? err.message : String(err)}`);
}
