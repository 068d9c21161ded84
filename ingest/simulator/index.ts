// The simulated non-validator node: drives the exchange block by block, writes the nine `_by_block` streams as
// history (fast, buffered) or in real time (paced by the wall clock), and answers `/info` from its state.
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { STREAMS, type StreamName } from '../../wire/node-lines.ts';
import { TraderBehaviour, TWAP_SLICE_MS } from './behaviour.ts';
import { BookHistory } from './book-history.ts';
import { Cascade } from './cascade.ts';
import { OrderChurn } from './churn.ts';
import { BlockClock, BlockGrid, type LeanGrid } from './clock.ts';
import { DustConversion } from './dust.ts';
import { BlockEvents } from './events.ts';
import { EvmChain } from './evm.ts';
import { Exchange } from './exchange.ts';
import { OutcomeRegistry } from './hip4.ts';
import { answerInfo, currentBooks, InfoRequestError, l4Snapshot } from './info.ts';
import { LedgerActivity } from './ledger.ts';
import { MarketData } from './market-data.ts';
import { MAINNET, type MainnetProfile, type ProfileName } from './profile.ts';
import { RiskEngine } from './risk.ts';
import type { Rng } from './rng.ts';
import { eventsJson } from './serialize.ts';
import { loadGraph, saveGraph } from './snapshot.ts';
import { HourlyFileWriter, type ResumePoints } from './writer.ts';

export interface SimulatorOptions {
  /** The node data dir the streams are written under (`<dataDir>/<stream>/hourly/...`). */
  dataDir: string;
  seed: number;
  /**
   * `mainnet`: mainnet's shape (profile.ts): its markets, trader pool, rates, every block a line of each node
   * stream, the daily dust block, order statuses at a set rate and cascades at `cascades`. Default `default`.
   */
  profile?: ProfileName;
  /** Starts of the cascade minutes (ms), mainnet profile only. */
  cascades?: readonly number[];
  /** Order statuses per second the mainnet profile tops its blocks up to (default MAINNET.orderStatusesPerSecond). */
  orderStatusesPerSecond?: number;
  /**
   * Regular traders (default 300); market makers, HLP and the HIP-3 backstop come on top. The mainnet profile's
   * pool (default MAINNET.traderPool), created as they first act.
   */
  users?: number;
  /** L1 blocks per second (default 5; the mainnet profile's 13.5). */
  blocksPerSecond?: number;
  /**
   * Average fills written per simulated second from the first block (default DEFAULT_FILLS_PER_SECOND; both sides
   * of a trade count), until the first of `rateChanges`.
   */
  fillsPerSecond?: number;
  /** Later fill rates, each from a block number on (ascending): a timeline's history rate, then its live rate. */
  rateChanges?: readonly FillRateChange[];
  marketMakers?: number;
  /** Ledger updates (deposits, transfers...) per simulated minute (default 3). */
  ledgerPerMinute?: number;
  /** Mean HyperEVM block interval (default 1500 ms: blocks 1 to 2 s apart). */
  evmBlockIntervalMs?: number;
  /** Skip blocks an earlier run already wrote (see scanResumePoints). */
  resumeAfter?: ResumePoints;
  /** Write buffer per stream (default 4 MiB); real time flushes after every tick anyway. */
  flushBytes?: number;
  /**
   * Blocks below this number are written lean: without LEAN_SKIPPED_STREAMS (a long history's older days, which
   * the derived analytics read only the fills, funding and ledger of). Default: none.
   */
  leanUntilBlock?: number;
  /**
   * A coarser block grid for the lean part (blocks before `untilMs` at `blocksPerSecond`); `leanUntilBlock` is then
   * where it ends. Default: one grid throughout.
   */
  leanGrid?: LeanGrid;
  /**
   * The history's backfill lane: blocks in these `[from, until)` ranges are written under `dir` (the same layout)
   * instead of `dataDir`, so ingest can follow the present in `dataDir` while it loads them apart (docs/simulated-history.md).
   * Default: none.
   */
  backfill?: BackfillLane;
  /**
   * How many blocks back `l4Snapshots` can be asked for at a height (`request.height`); default
   * DEFAULT_BOOK_HISTORY_BLOCKS. Lean blocks are not kept (they write no book diffs to follow).
   */
  bookHistoryBlocks?: number;
}

/** Two minutes of the default block rate: more than a consumer needs to meet a snapshot with its diffs. */
export const DEFAULT_BOOK_HISTORY_BLOCKS = 600;

export interface BackfillLane {
  dir: string;
  ranges: readonly (readonly [number, number])[];
}

/**
 * What a lean block leaves out: the book diffs (ingest reads them live only, never from history) and the order
 * statuses (the bulk of a history's bytes and rows; the orders dataset's coverage then starts after the lean
 * blocks, as dataCoverage says).
 */
export const LEAN_SKIPPED_STREAMS: ReadonlySet<StreamName> = new Set([
  'node_raw_book_diffs_by_block',
  'node_order_statuses_by_block',
]);

/**
 * The streams a node writes (the rest are our own, ingest/FORMATS.md §2): in the mainnet profile each holds a line
 * for every block, `"events":[]` when nothing happened, as a node's `_by_block` files do (mainnet-volumes.md §1).
 */
export const NODE_STREAMS: ReadonlySet<StreamName> = new Set([
  'node_fills_by_block',
  'node_order_statuses_by_block',
  'node_raw_book_diffs_by_block',
  'node_twap_statuses_by_block',
  'misc_events_by_block',
]);

/** How writeHistory shares the thread: work `sliceMs` (default 100), then yield, resting `restMs` (default 0). */
export interface HistoryShare {
  sliceMs?: number;
  restMs?: number;
}

export interface FillRateChange {
  fromBlock: number;
  fillsPerSecond: number;
}

/**
 * Fills per second of the default live feed: the rate of a small real exchange, with BTC and ETH trading every
 * second or two and their books changing several times a second. Averaged over the day: the diurnal curve's
 * trough (×0.65, around 03:00 UTC) still gives 20 fills/s.
 */
export const DEFAULT_FILLS_PER_SECOND = 40;

/**
 * Counts for a writeHistory call (or cumulative, `stats`). `blocks` counts every block produced, including blocks
 * replayed silently on resume; event counts, `lines` and `bytes` count what was written.
 */
export interface SimulatorStats {
  blocks: number;
  firstBlock: number | null;
  lastBlock: number | null;
  fills: number;
  orderStatuses: number;
  bookDiffs: number;
  twapStatuses: number;
  miscEvents: number;
  assetCtxs: number;
  reserveSamples: number;
  hip4Events: number;
  evmBlocks: number;
  liquidations: number;
  lines: number;
  bytes: number;
  simulatedMs: number;
  wallMs: number;
}

/** Stats field counting each stream's written events. */
const STREAM_STAT: Record<StreamName, keyof SimulatorStats> = {
  node_fills_by_block: 'fills',
  node_order_statuses_by_block: 'orderStatuses',
  node_raw_book_diffs_by_block: 'bookDiffs',
  node_twap_statuses_by_block: 'twapStatuses',
  misc_events_by_block: 'miscEvents',
  asset_ctxs_by_block: 'assetCtxs',
  borrow_lend_reserves_by_block: 'reserveSamples',
  hip4_registry_by_block: 'hip4Events',
  evm_blocks_by_block: 'evmBlocks',
};

/** Fills per trader action at the default mix: the starting point of the rate controller. */
const FILLS_PER_ACTION = 0.95;
/** Longest stretch of synchronous work before yielding to the event loop (signals, /info requests). */
const SLICE_MS = 100;

export class Simulator {
  readonly exchange: Exchange;
  private readonly opts: Required<
    Omit<
      SimulatorOptions,
      | 'resumeAfter'
      | 'rateChanges'
      | 'leanUntilBlock'
      | 'backfill'
      | 'leanGrid'
      | 'profile'
      | 'cascades'
      | 'orderStatusesPerSecond'
      | 'bookHistoryBlocks'
    >
  >;
  /** The mainnet profile's parameters (null: the default). */
  private readonly profile: MainnetProfile | null;
  private readonly dust: DustConversion | null;
  private readonly cascade: Cascade | null;
  private readonly churn: OrderChurn | null;
  private leanUntilBlock: number;
  private readonly leanGrid: LeanGrid | undefined;
  private readonly behaviour: TraderBehaviour;
  private readonly risk: RiskEngine;
  private readonly ledger: LedgerActivity;
  private readonly marketData: MarketData;
  private readonly outcomes: OutcomeRegistry;
  private readonly evm: EvmChain;
  private readonly writer: HourlyFileWriter;
  private readonly backfillWriter: HourlyFileWriter | null;
  private readonly backfillRanges: readonly (readonly [number, number])[];
  private lastWriter: HourlyFileWriter | null = null;
  private readonly ev = new BlockEvents();
  private clock: BlockClock | null = null;
  private lastMinute = 0;
  private lastHour = 0;
  private activity = 1;
  /** Rate controller: actions are scaled so that cumulative fills track fillsPerSecond over time. */
  private fillTarget = 0;
  private fillActual = 0;
  private rateScale = 1;
  private fillsPerSecond: number;
  private actionsPerMs: number;
  private readonly rateChanges: readonly FillRateChange[];
  private nextRateChange = 0;
  private readonly ledgerPerMs: number;
  private realtime = false;
  private isStopped = false;
  private timer: NodeJS.Timeout | null = null;
  private readonly totals: SimulatorStats = emptyStats();
  private bookHistory: BookHistory;

  constructor(opts: SimulatorOptions) {
    const profile = opts.profile === 'mainnet' ? MAINNET : null;
    this.profile = profile;
    this.opts = {
      dataDir: opts.dataDir,
      seed: opts.seed,
      users: opts.users ?? profile?.traderPool ?? 300,
      blocksPerSecond: opts.blocksPerSecond ?? profile?.blocksPerSecond ?? 5,
      fillsPerSecond: opts.fillsPerSecond ?? profile?.fillsPerSecond ?? DEFAULT_FILLS_PER_SECOND,
      marketMakers: opts.marketMakers ?? profile?.marketMakers ?? 6,
      ledgerPerMinute: opts.ledgerPerMinute ?? 3,
      evmBlockIntervalMs: opts.evmBlockIntervalMs ?? 1500,
      flushBytes: opts.flushBytes ?? 4 << 20,
    };
    const { seed } = this.opts;
    this.exchange = new Exchange({
      seed,
      users: this.opts.users,
      marketMakers: this.opts.marketMakers,
      ...(profile ? { profile } : {}),
    });
    this.behaviour = new TraderBehaviour(this.exchange, this.opts.fillsPerSecond, profile ?? undefined);
    this.risk = new RiskEngine(this.exchange, seed);
    this.dust = profile ? new DustConversion(this.exchange, seed, profile) : null;
    this.cascade = profile ? new Cascade(this.exchange, this.risk, profile, opts.cascades ?? []) : null;
    const statusRate = opts.orderStatusesPerSecond ?? profile?.orderStatusesPerSecond ?? 0;
    this.churn = profile && statusRate > 0 ? new OrderChurn(this.exchange, statusRate, seed) : null;
    this.ledger = new LedgerActivity(this.exchange);
    this.marketData = new MarketData(this.exchange, seed);
    this.outcomes = new OutcomeRegistry(this.exchange, seed);
    this.evm = new EvmChain(this.exchange, { seed, blockIntervalMs: this.opts.evmBlockIntervalMs });
    const files = { flushBytes: this.opts.flushBytes, resumeAfter: opts.resumeAfter };
    this.writer = new HourlyFileWriter(this.opts.dataDir, files);
    this.backfillWriter = opts.backfill ? new HourlyFileWriter(opts.backfill.dir, files) : null;
    this.backfillRanges = opts.backfill?.ranges ?? [];
    this.fillsPerSecond = this.opts.fillsPerSecond;
    this.actionsPerMs = this.fillsPerSecond / FILLS_PER_ACTION / 1000;
    this.rateChanges = opts.rateChanges ?? [];
    this.leanUntilBlock = opts.leanUntilBlock ?? 0;
    this.leanGrid = opts.leanGrid;
    this.ledgerPerMs = this.opts.ledgerPerMinute / 60_000;
    this.bookHistory = new BookHistory(opts.bookHistoryBlocks ?? DEFAULT_BOOK_HISTORY_BLOCKS);
  }

  /** stop() was called. */
  get stopped(): boolean {
    return this.isStopped;
  }

  /** Time of the last produced block (ms), or null before the first. */
  get currentTimeMs(): number | null {
    return this.clock && this.totals.blocks > 0 ? this.ev.timeMs : null;
  }

  /** Cumulative counts since construction. */
  get stats(): SimulatorStats {
    const backfill = this.backfillWriter;
    return {
      ...this.totals,
      lines: this.writer.linesWritten + (backfill?.linesWritten ?? 0),
      bytes: this.writer.bytesWritten + (backfill?.bytesWritten ?? 0),
      liquidations: this.risk.liquidations,
    };
  }

  /**
   * Writes blocks from `fromMs` to `toMs` as fast as possible. The block grid starts at `fromMs` on the first
   * call; later calls continue from the last block.
   */
  async writeHistory(fromMs: number, toMs: number, share: HistoryShare = {}): Promise<SimulatorStats> {
    const clock = this.ensureClock(fromMs);
    const before = this.stats;
    const started = performance.now();
    const sliceMs = share.sliceMs ?? SLICE_MS;
    const restMs = share.restMs ?? 0;
    let sliceStart = started;
    let produced = 0;
    while (!this.isStopped && clock.nextTimeMs < toMs) {
      this.produceBlock();
      if ((++produced & 63) === 0 && performance.now() - sliceStart > sliceMs) {
        await new Promise((resolve) => (restMs > 0 ? setTimeout(resolve, restMs) : setImmediate(resolve)));
        sliceStart = performance.now();
      }
    }
    if (!this.isStopped) {
      this.writer.flush();
      this.backfillWriter?.flush();
    }
    const after = this.stats;
    const delta = diffStats(after, before);
    delta.wallMs = performance.now() - started;
    delta.firstBlock = produced > 0 ? after.lastBlock! - produced + 1 : null;
    delta.lastBlock = produced > 0 ? after.lastBlock : null;
    return delta;
  }

  /**
   * Writes the blocks after the last one written up to `toMs`, as fast as possible: a simulator resumed from a saved
   * state catching up with the present (its block grid is the saved one's).
   */
  catchUp(toMs: number): Promise<SimulatorStats> {
    if (!this.clock) throw new Error('catchUp: nothing written yet to go on from (writeHistory starts a grid)');
    return this.writeHistory(this.clock.nextTimeMs, toMs);
  }

  /** Produces blocks in real time from now on (the wall clock only paces the fixed block grid), until stop(). */
  startRealtime(): void {
    if (this.realtime || this.isStopped) return;
    this.ensureClock(Date.now());
    this.realtime = true;
    this.tick();
  }

  /** Stops real time, flushes and closes files. */
  async stop(): Promise<void> {
    if (this.isStopped) return;
    this.isStopped = true;
    this.realtime = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.writer.close();
    this.backfillWriter?.close();
  }

  /**
   * The state after the last block written (the exchange, every random stream, the clock, the rate controller), for
   * Simulator.resume: a test stack's node goes on from the history its template holds instead of producing it again.
   * Only between writeHistory calls, writing to one data dir.
   */
  saveState(): Buffer {
    if (this.realtime || this.isStopped || this.backfillWriter) {
      throw new Error('saveState: only a simulator between writeHistory calls, with no backfill lane');
    }
    this.writer.flush();
    return saveGraph(Object.fromEntries(Object.entries(this).filter(([key]) => !UNSAVED.has(key))));
  }

  /**
   * The simulator `saved` (saveState) holds, appending to the node files under `dataDir` (a copy of those it had
   * written): writeHistory and startRealtime go on from the block after its last, as the saved one would have.
   */
  static resume(saved: Buffer, dataDir: string): Simulator {
    const state = loadGraph(saved) as { opts: Simulator['opts'] };
    const sim = Object.create(Simulator.prototype) as Simulator;
    const opts = { ...state.opts, dataDir };
    const fresh: Record<string, unknown> = {
      writer: new HourlyFileWriter(dataDir, { flushBytes: opts.flushBytes }),
      backfillWriter: null,
      lastWriter: null,
      bookHistory: new BookHistory(DEFAULT_BOOK_HISTORY_BLOCKS),
      timer: null,
      realtime: false,
      isStopped: false,
    };
    return Object.assign(sim, state, { opts }, fresh);
  }

  /** Answers a node /info body; throws InfoRequestError for bodies a node refuses. */
  info(body: unknown): unknown {
    const req = body as { type?: unknown } | null;
    if (req && typeof req === 'object' && req.type === 'fileSnapshot')
      return this.fileSnapshot(req as Record<string, unknown>);
    return answerInfo(this.exchange, this.currentTimeMs ?? 0, body);
  }

  /**
   * `fileSnapshot` as hl-node's --serve-info offers it: writes the L4 books at the last produced block to
   * `outPath` (as `[height, books]` with `includeHeightInOutput`) and answers null. `request.height` (ours: a node
   * answers its present only) asks for the books at the end of an earlier block of the kept past (bookHistory);
   * a height outside it is refused as a node refuses a body.
   */
  private fileSnapshot(req: Record<string, unknown>): null {
    const request = req.request as { type?: unknown; height?: unknown } | undefined;
    if (request?.type !== 'l4Snapshots' || typeof req.outPath !== 'string' || !path.isAbsolute(req.outPath)) {
      throw new InfoRequestError();
    }
    const snapshot = this.l4SnapshotAt(request.height === undefined ? null : request.height);
    if (!snapshot) throw new InfoRequestError(`l4Snapshots: no books at height ${String(request.height)}`);
    const [height, books] = snapshot;
    fs.writeFileSync(req.outPath, JSON.stringify(req.includeHeightInOutput === true ? [height, books] : books));
    return null;
  }

  /**
   * The node's l4Snapshots content at the end of block `height` (null: the last block), with that height; null for
   * a height not kept (lean, older than bookHistoryBlocks, or not produced yet).
   */
  l4SnapshotAt(height: unknown): [number, ReturnType<typeof l4Snapshot>] | null {
    const last = this.stats.lastBlock ?? 0;
    if (height === null || height === last) return [last, l4Snapshot(currentBooks(this.exchange))];
    if (typeof height !== 'number' || !Number.isSafeInteger(height)) return null;
    const books = this.bookHistory.at(height);
    return books ? [height, l4Snapshot(books)] : null;
  }

  /** The heights l4SnapshotAt answers besides the last: [oldest, newest], or null. */
  get bookHistoryRange(): [number, number] | null {
    return this.bookHistory.range();
  }

  private tick(): void {
    this.timer = null;
    if (!this.realtime || !this.clock) return;
    const clock = this.clock;
    const sliceStart = performance.now();
    let produced = 0;
    while (clock.nextTimeMs <= Date.now() && performance.now() - sliceStart < SLICE_MS) {
      this.produceBlock();
      produced++;
    }
    if (produced > 0) this.writer.flush();
    this.timer = setTimeout(() => this.tick(), Math.max(0, clock.nextTimeMs - Date.now()));
  }

  private ensureClock(startMs: number): BlockClock {
    if (!this.clock) {
      const grid = new BlockGrid(startMs, this.opts.blocksPerSecond, this.leanGrid);
      if (this.leanGrid) this.leanUntilBlock = grid.regularFromNumber;
      this.clock = new BlockClock(grid, this.opts.seed);
      this.lastMinute = Math.floor(this.clock.nextTimeMs / 60_000);
      this.lastHour = Math.floor(this.clock.nextTimeMs / 3600_000);
      this.activity = diurnal(this.clock.nextTimeMs);
    }
    return this.clock;
  }

  private produceBlock(): void {
    const ev = this.ev;
    const x = this.exchange;
    const clock = this.clock!;
    const first = this.totals.blocks === 0;
    const previousMs = first ? clock.nextTimeMs : ev.timeMs;
    ev.clear();
    clock.advance(ev);
    const changes = this.rateChanges;
    while (this.nextRateChange < changes.length && ev.blockNumber >= changes[this.nextRateChange]!.fromBlock) {
      this.setFillRate(changes[this.nextRateChange++]!.fillsPerSecond);
    }
    x.beginBlock(ev);
    if (first) this.outcomes.start(ev.streams.hip4_registry_by_block);
    if (first && this.profile) this.aimTwaps(this.profile);
    // Fills outside the rate controller's count: the dust block's and a cascade's.
    let unpaced = 0;
    if (this.dust && !first && Math.floor(ev.timeMs / DAY_MS) !== Math.floor(previousMs / DAY_MS)) {
      unpaced += this.dust.convert();
    }

    const minute = Math.floor(ev.timeMs / 60_000);
    if (minute !== this.lastMinute) {
      const hour = Math.floor(ev.timeMs / 3600_000);
      if (hour !== this.lastHour) {
        this.lastHour = hour;
        this.risk.payFunding();
      }
      this.lastMinute = minute;
      this.activity = diurnal(ev.timeMs);
      // Integral control: the backlog, in minutes of target fills, nudges the action rate each minute.
      const backlog = (this.fillTarget - this.fillActual) / Math.max(1, this.fillsPerSecond * 60);
      this.rateScale = Math.min(5, Math.max(0.2, this.rateScale * Math.exp(0.03 * Math.max(-5, Math.min(5, backlog)))));
      this.risk.minuteTick(minute, this.leaner(ev));
      this.marketData.sample(minute * 60_000, ev.streams.asset_ctxs_by_block, ev.streams.borrow_lend_reserves_by_block);
      this.outcomes.minuteTick(ev.streams.hip4_registry_by_block);
      if (this.profile) this.aimTwaps(this.profile);
    }
    const elapsed = Math.max(0, ev.timeMs - previousMs);
    if (this.cascade) unpaced += this.cascade.step(elapsed);
    this.behaviour.runTwaps();
    if (this.profile) this.behaviour.topUpTwaps();
    const actions = this.actionsPerMs * elapsed * this.activity * this.rateScale;
    this.behaviour.act(this.profile ? bursts(x.rng, actions, this.profile.actionsPerBurst) : x.rng.poisson(actions));
    this.fillTarget += (this.fillsPerSecond / 1000) * elapsed * this.activity;
    this.fillActual += ev.fills.length - unpaced;
    this.ledger.act(x.rng.poisson(this.ledgerPerMs * elapsed));
    this.evm.step(ev.streams.evm_blocks_by_block, this.leaner(ev));
    // Statuses are not written in a lean block: none are owed there.
    if (this.churn && ev.blockNumber >= this.leanUntilBlock) this.churn.step(elapsed);
    if (ev.blockNumber >= this.leanUntilBlock) this.bookHistory.capture(x, ev.blockNumber);
    this.write(ev);
  }

  /**
   * The TWAPs to keep running for the profile's share of fills: slices come every TWAP_SLICE_MS, each giving its
   * owner the fills measured so far (one before there is a measure).
   */
  private aimTwaps(profile: MainnetProfile): void {
    const b = this.behaviour;
    const fillsPerSlice = b.twapSlices >= 50 ? b.twapFills / b.twapSlices : 1;
    const twapFillsPerSecond = profile.twapShare * this.fillsPerSecond * this.activity;
    b.setTwapTarget((twapFillsPerSecond * TWAP_SLICE_MS) / 1000 / fillsPerSlice);
  }

  /**
   * A block of a lean part with its own grid: margins are checked and EVM blocks come less often there. Only such
   * timelines (older ones replay exactly as they were written).
   */
  private leaner(ev: BlockEvents): boolean {
    return this.leanGrid !== undefined && ev.blockNumber < this.leanUntilBlock;
  }

  /**
   * A new rate from this block on. The controller starts over, as in a fresh run: what it learned at the old rate
   * misleads it at the new one (hours at 1 fill/s can leave its scale anywhere in 0.2–1.1, so that 40 fills/s
   * would start at 8 and take many minutes to recover), and fills owed or overshot would push the new rate.
   */
  private setFillRate(fillsPerSecond: number): void {
    this.fillsPerSecond = fillsPerSecond;
    this.actionsPerMs = fillsPerSecond / FILLS_PER_ACTION / 1000;
    this.rateScale = 1;
    this.fillTarget = this.fillActual;
    this.behaviour.setFillRate(fillsPerSecond);
  }

  /**
   * The backfill lane's writer for blocks in its ranges, else the node data dir's. A lane's buffered blocks are
   * flushed when the other lane takes over: resume points are per stream across both lanes, so a newer block on
   * disk in one lane must never stand before older ones still in the other's buffer.
   */
  private writerOf(blockNumber: number): HourlyFileWriter {
    const backfill = this.backfillWriter;
    const inBackfill =
      backfill !== null && this.backfillRanges.some(([from, until]) => blockNumber >= from && blockNumber < until);
    const writer = inBackfill ? backfill : this.writer;
    if (writer !== this.lastWriter) this.lastWriter?.flush();
    this.lastWriter = writer;
    return writer;
  }

  private write(ev: BlockEvents): void {
    const totals = this.totals;
    totals.blocks++;
    totals.lastBlock = ev.blockNumber;
    totals.firstBlock ??= ev.blockNumber;
    totals.simulatedMs = ev.timeMs - this.clock!.startMs;
    let prefix: string | null = null;
    const lean = ev.blockNumber < this.leanUntilBlock;
    const writer = this.writerOf(ev.blockNumber);
    const everyBlock = this.profile !== null;
    for (const stream of STREAMS) {
      const events = ev.streams[stream];
      if (events.length === 0 && !(everyBlock && NODE_STREAMS.has(stream))) continue;
      if (!writer.wants(stream, ev.blockNumber)) continue;
      if (lean && LEAN_SKIPPED_STREAMS.has(stream)) continue;
      (totals[STREAM_STAT[stream]] as number) += events.length;
      prefix ??= `{"local_time":"${ev.localIso}","block_time":"${ev.iso}","block_number":${ev.blockNumber},"events":`;
      writer.append(stream, ev.timeMs, `${prefix}${eventsJson(stream, events)}}\n`);
    }
  }
}

/** What saveState leaves out: files, timers and the run state, which Simulator.resume makes anew. */
const UNSAVED: ReadonlySet<string> = new Set([
  'bookHistory',
  'writer',
  'backfillWriter',
  'lastWriter',
  'timer',
  'realtime',
  'isStopped',
]);

const DAY_MS = 86_400_000;

/** Actions of a block, `mean` on average, in bursts of `perBurst` on average: more blocks go without any. */
function bursts(rng: Rng, mean: number, perBurst: number): number {
  const count = rng.poisson(mean / perBurst);
  return count === 0 ? 0 : count + rng.poisson(count * (perBurst - 1));
}

/** Activity peaks in the US/EU overlap and dips in the Asian night (±35 %). */
function diurnal(timeMs: number): number {
  const hourOfDay = (timeMs % 86_400_000) / 3600_000;
  return 1 + 0.35 * Math.sin((2 * Math.PI * (hourOfDay - 9)) / 24);
}

function emptyStats(): SimulatorStats {
  return {
    blocks: 0,
    firstBlock: null,
    lastBlock: null,
    fills: 0,
    orderStatuses: 0,
    bookDiffs: 0,
    twapStatuses: 0,
    miscEvents: 0,
    assetCtxs: 0,
    reserveSamples: 0,
    hip4Events: 0,
    evmBlocks: 0,
    liquidations: 0,
    lines: 0,
    bytes: 0,
    simulatedMs: 0,
    wallMs: 0,
  };
}

function diffStats(after: SimulatorStats, before: SimulatorStats): SimulatorStats {
  const out = { ...after };
  for (const key of Object.keys(out) as (keyof SimulatorStats)[]) {
    const a = after[key];
    const b = before[key];
    if (typeof a === 'number' && typeof b === 'number' && key !== 'firstBlock' && key !== 'lastBlock') {
      (out[key] as number) = a - b;
    }
  }
  return out;
}
