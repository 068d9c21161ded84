// The markets domain service, the one façade of this folder: live state (order books from raw diffs, mids, open
// candles, latest asset contexts) fed by the event bus and rebuilt from Postgres and the node's /info after a
// restart, plus the stored history, with the defaults and input rules of its queries. The markets subgraph and
// compat-rest call only this class (and import only the types and constants re-exported here); the pool is its own.
// It knows nothing of GraphQL or HTTP.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { inTransaction } from '../../../db/pool.ts';
import type { AssetCtxRow } from '../../../db/rows/markets.ts';
import { type BusGap, derivedTopic, type EventBus, type EventSource, InProcessBus } from '../../../events/bus.ts';
import type { InputOf } from '../../../kit/input.ts';
import { orderedWindow } from '../../../platform/fields.ts';
import type { Upstream } from '../../../platform/upstream.ts';
import { isHip3Coin } from '../../../wire/coins.ts';
import type { L2BookAnswer } from './book/coin-book.ts';
import { type L4BlockUpdates, L4UpdateAssembler } from './book/l4-updates.ts';
import { type L4BookAnswer, OrderBooks } from './book.ts';
import { backfillCandles, CandleAggregator, type CandleFrame, openCandleSeeds, pgCandleStore } from './candles.ts';
import { Hip3Rollup, type Hip3Snapshot, hip3Dexes, hip3Snapshots, priceMove } from './hip3.ts';
import {
  availableDates,
  HISTORY_DATASET_NAMES,
  HISTORY_SERIES,
  HistorySampler,
  historyCoins,
  liquidityReport,
} from './history.ts';
import type {
  ALL_MIDS,
  AVAILABLE_DATES,
  CANDLES,
  CoinSelection,
  FUNDING_HISTORY,
  HIP3_TOP_MOVERS,
  L2_BOOK,
  L2_BOOKS,
  L4_BOOK,
  LIQUIDITY_REPORT,
  MARKET_HISTORY,
  RESERVE_HISTORY,
  TRADES,
} from './inputs.ts';
import { HISTORY_WINDOW_MS, RESERVE_WINDOW_MS } from './limits.ts';
import {
  candleSnapshot,
  candleSnapshotJson,
  fundingHistory,
  toWireTrade,
  tradesOf,
  type WireTrade,
} from './market-data.ts';
import {
  evmContractsOf,
  type MarketInfo,
  marketInfoOf,
  type PerpAssetCtx,
  type PerpMeta,
  type SpotAssetCtx,
  type SpotMeta,
  spotTokensOfContracts,
  UnknownDexError,
} from './meta.ts';
import { allReserveStates, latestReserves, reserveHistory } from './reserves.ts';
import { latestPerKey } from './sql.ts';
import { MarketStoredStreams } from './stored-streams.ts';
import { MarketStreams } from './streams.ts';

/** Live events the service emits for subscriptions (GraphQL and /ws alike). */
export type MarketEvents = {
  trades: WireTrade;
  candles: CandleFrame;
  /** Coins whose book changed. */
  books: string;
  /** A block's order statuses and raw book diffs, by coin (the L4 book's updates). */
  l4Updates: L4BlockUpdates;
  assetCtxs: AssetCtxRow;
};

/** The advisory lock a gap's candle backfill is written under ("hlcb"): one instance writes it, the others skip. */
const CANDLE_BACKFILL_LOCK = 0x686c6362;
/** How long the closed candles of one gap may take to write. */
const REFILL_TIMEOUT_MS = 60_000;

export interface MarketsServiceOptions {
  /** The primary: the candles and history samples written, and the state rebuilt at start beside the bus. */
  pool: pg.Pool;
  /** The queries' reads (a replica: DATABASE_READ_URL); `pool` when unset. */
  readPool?: pg.Pool;
  upstream: Upstream;
  bus?: EventBus;
  now?: () => number;
  /** How long meta answers from the node are reused. */
  metaTtlMs?: number;
  /** Period of the market-history archive's samples. */
  historySampleMs?: number;
}

const META_TTL_MS = 30_000;

/** A time window whose bounds the caller may leave out. */
export interface OptionalWindow {
  startTime?: number;
  endTime?: number;
}

export class MarketsService {
  readonly books = new OrderBooks();
  /** The domain's own live events; trades carry the ingest bus's seq (their subscribers resume through its log). */
  readonly live = new InProcessBus<MarketEvents>({ retainMs: 0 });
  /** Trades as the exchange prints them, resumable: followed on `live`, replayed from the ingest bus. */
  readonly tradeEvents: EventSource<Pick<MarketEvents, 'trades'>>;
  /** Every live stream of the domain (GraphQL subscriptions and /ws channels adapt them). */
  readonly streams: MarketStreams = new MarketStreams(this);
  /** Its trades read back from the store too, resumed or replayed (kit/resume.ts); none without an ingest bus. */
  readonly stored: MarketStoredStreams | undefined;
  readonly candles: CandleAggregator;
  readonly history: HistorySampler;
  private readonly ctxs = new Map<string, AssetCtxRow>();
  private readonly lastTradePx = new Map<string, string>();
  /** Time of each coin's last trade in `lastTradePx`: a stored one replaces it only when newer. */
  private readonly lastTradeAt = new Map<string, number>();
  private midsCache: Record<string, string> | undefined;
  private firstDexMidsCache: Record<string, string> | undefined;
  private readonly unsubscribe: (() => void)[] = [];
  /** Where the queries read: a replica may lag the primary by a moment, as a query may come a moment later. */
  private readonly pool: pg.Pool;
  /** Writes, and the reads that must meet the bus without a gap (start). */
  private readonly primary: pg.Pool;
  private readonly upstream: Upstream;
  private readonly metaTtlMs: number;
  /** Whether the HIP-3 rollup is filled yet, and the hours the 24 h window starts in (service/hip3.ts). */
  private readonly hip3Rollup = new Hip3Rollup({ readAhead: true });
  private readonly l4Updates = new L4UpdateAssembler((block) => this.live.publish('l4Updates', [block]));
  readonly now: () => number;

  constructor(opts: MarketsServiceOptions) {
    this.pool = opts.readPool ?? opts.pool;
    this.primary = opts.pool;
    this.upstream = opts.upstream;
    this.now = opts.now ?? Date.now;
    this.metaTtlMs = opts.metaTtlMs ?? META_TTL_MS;
    this.candles = new CandleAggregator({
      store: pgCandleStore(opts.pool),
      emit: (frames) => this.live.publish('candles', frames),
      now: this.now,
    });
    this.history = new HistorySampler(opts.pool, this.books, opts.historySampleMs ?? 10_000, this.now);
    this.tradeEvents = opts.bus
      ? derivedTopic(this.live, 'trades', opts.bus, 'trades', (rows) => rows.map(toWireTrade))
      : this.live;
    this.stored = opts.bus
      ? new MarketStoredStreams(opts.bus, opts.pool, (coin, interval) => this.candles.recent(coin, interval))
      : undefined;
    if (opts.bus) this.attach(opts.bus);
  }

  /** Follows the ingest bus: trades feed candles, mids and trade subscribers; diffs the books; contexts. */
  private attach(bus: EventBus): void {
    this.unsubscribe.push(
      bus.subscribe('trades', (trades, seq) => {
        this.candles.onTrades(trades);
        for (const t of trades) this.setLastTrade(t.coin, t.px, t.time);
        this.midsCache = undefined;
        this.firstDexMidsCache = undefined;
        this.live.deliver('trades', trades.map(toWireTrade), seq);
      }),
      bus.subscribe('orderStatuses', (rows) => {
        this.books.noteStatuses(rows);
        this.l4Updates.statuses(rows);
      }),
      bus.subscribe('bookDiffs', (diffs) => {
        this.l4Updates.diffs(diffs);
        const changed = this.books.applyDiffs(diffs);
        if (!changed.size) return;
        this.midsCache = undefined;
        this.firstDexMidsCache = undefined;
        this.live.publish('books', [...changed]);
      }),
      // A backfill the bus was not given: its closed candles and the books are read again from storage and the node.
      bus.subscribe('gaps', (gaps) => {
        for (const gap of gaps) {
          this.refill(gap).catch((err) =>
            console.error(`markets: after a gap in the events: ${err instanceof Error ? err.message : String(err)}`),
          );
        }
      }),
      bus.subscribe('assetCtxs', (rows) => {
        for (const r of rows) {
          const prior = this.ctxs.get(r.coin);
          if (!prior || prior.time <= r.time) this.ctxs.set(r.coin, r);
        }
        this.live.publish('assetCtxs', rows);
      }),
    );
  }

  /** Rebuilds live state after a (re)start: latest contexts and last prices, open candles, the books. */
  async start(): Promise<void> {
    const now = this.now();
    await this.loadLatest(now);
    // Closed buckets the aggregator never saw (history loaded while it was down), then the open ones.
    const { rows: latest } = await this.primary.query<{ t: number | null }>(
      `SELECT max(t) AS t FROM markets.candles WHERE interval = '1m'`,
    );
    await backfillCandles(this.primary, latest[0]?.t ?? 0, now);
    await this.refillCandles();
    const seeds = await openCandleSeeds(this.primary, now);
    this.candles.seed(seeds.rollups, seeds.trades);
    this.candles.start();
    this.history.start();
    await this.loadBookSnapshot().catch((err) => {
      console.error(
        `markets: no book snapshot from the node (${err instanceof Error ? err.message : String(err)}); books fill from live diffs`,
      );
      this.books.loadSnapshot([], 0, now);
    });
    this.midsCache = undefined;
    this.firstDexMidsCache = undefined;
  }

  private setLastTrade(coin: string, px: string, time: number): void {
    if ((this.lastTradeAt.get(coin) ?? Number.NEGATIVE_INFINITY) > time) return;
    this.lastTradePx.set(coin, px);
    this.lastTradeAt.set(coin, time);
  }

  /** The latest stored contexts and last prices, where nothing newer came live. */
  private async loadLatest(now: number): Promise<void> {
    const { rows: ctxs } = await this.primary.query<AssetCtxRow>(
      latestPerKey('markets.asset_ctxs', 'coin', 't.*', `t.time > ${Math.floor(now - 86_400_000)}`),
    );
    for (const r of ctxs) {
      const prior = this.ctxs.get(r.coin);
      if (!prior || prior.time < r.time) this.ctxs.set(r.coin, r);
    }
    const { rows: last } = await this.primary.query<{ coin: string; px: string; time: number }>(
      latestPerKey('markets.trades', 'coin', 'coin, px::text AS px, time'),
    );
    for (const r of last) this.setLastTrade(r.coin, r.px, Number(r.time));
    this.midsCache = undefined;
    this.firstDexMidsCache = undefined;
  }

  /**
   * What a gap in the events (BusGap) leaves missing: the closed candles of its trades, recorded first so that a stop
   * does not lose them (refillCandles), and the books, from the node's snapshot.
   */
  private async refill(gap: BusGap): Promise<void> {
    if (gap.topics.includes('trades')) {
      await this.primary.query(
        'INSERT INTO markets.candle_refills (from_ms, until_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        [gap.from, gap.until],
      );
      await this.refillCandles();
    }
    if (gap.topics.includes('trades') || gap.topics.includes('assetCtxs')) await this.loadLatest(this.now());
    if (gap.topics.includes('bookDiffs')) await this.reloadBookSnapshot();
  }

  /**
   * Writes the closed candles of every gap recorded (markets.candle_refills) and deletes its row in the same
   * transaction: one instance of those following the bus, under a lock (the others find it taken), and again at
   * start for a refill a stop cut short. The instance holding the lock looks again once it commits: a gap recorded
   * by another while it wrote was left to it.
   */
  private async refillCandles(): Promise<void> {
    for (;;) {
      const done = await inTransaction(this.primary, async (client) => {
        const { rows } = await client.query<{ mine: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS mine', [
          CANDLE_BACKFILL_LOCK,
        ]);
        if (!rows[0]?.mine) return 0;
        const { rows: gaps } = await client.query<{ from_ms: number; until_ms: number }>(
          'SELECT from_ms, until_ms FROM markets.candle_refills ORDER BY from_ms',
        );
        // A backfill's gap may span days of trades: more than an answer's 3 s.
        await client.query(`SET LOCAL statement_timeout = ${REFILL_TIMEOUT_MS}`);
        for (const gap of gaps) {
          await backfillCandles(client, gap.from_ms, this.now(), undefined, {
            until: gap.until_ms,
            timeoutMs: REFILL_TIMEOUT_MS + 500,
          });
          await client.query('DELETE FROM markets.candle_refills WHERE from_ms = $1 AND until_ms = $2', [
            gap.from_ms,
            gap.until_ms,
          ]);
        }
        return gaps.length;
      });
      if (!done) return;
    }
  }

  /**
   * Loads the node's book snapshot again. After a history written while serving (npm start's simulator), the books
   * were built from that history's diffs alone and miss the orders resting since before it; the node's snapshot
   * once the history has reached now holds them all.
   */
  async reloadBookSnapshot(): Promise<void> {
    await this.loadBookSnapshot();
    this.midsCache = undefined;
    this.firstDexMidsCache = undefined;
  }

  /** Asks the node for an L4 snapshot file (what hl-node's --serve-info offers) and loads it. */
  private async loadBookSnapshot(): Promise<void> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'hl-l4-'));
    const outPath = path.join(dir, 'l4.json');
    try {
      await fs.chmod(dir, 0o777);
      await this.upstream.json({
        type: 'fileSnapshot',
        request: { type: 'l4Snapshots', includeUsers: true, includeTriggerOrders: false },
        outPath,
        includeHeightInOutput: true,
      });
      const [height, snapshot] = JSON.parse(await fs.readFile(outPath, 'utf8')) as [number, unknown];
      this.books.loadSnapshot(OrderBooks.parseL4Snapshot(snapshot), height, this.now());
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  async stop(): Promise<void> {
    for (const u of this.unsubscribe.splice(0)) u();
    this.l4Updates.stop();
    this.candles.stop();
    await this.history.stop();
  }

  // ---- metadata (from the node) ----

  /** The perp dex's metadata from the node; UnknownDexError when the node knows no such dex (it answers null). */
  async meta(dex = ''): Promise<PerpMeta> {
    const meta = await this.upstream.json<PerpMeta | null>({ type: 'meta', dex }, this.metaTtlMs);
    if (!Array.isArray(meta?.universe)) throw new UnknownDexError(dex);
    return meta;
  }

  /**
   * The node's answer to a type the service does not index (`{type, ...fields}`), parsed; cached `ttlMs` (0: asked
   * each time). What a relayed /info type answers as the node's bytes, the other doors answer through this.
   */
  nodeAnswer(body: Readonly<Record<string, unknown>>, ttlMs: number): Promise<unknown> {
    return this.upstream.json(body, ttlMs);
  }

  spotMeta(): Promise<SpotMeta> {
    return this.upstream.json<SpotMeta>({ type: 'spotMeta' }, this.metaTtlMs);
  }

  /** The HyperEVM contract of each spot token of `indexes` (null where none), from one spotMeta answer. */
  async evmContracts(indexes: readonly number[]): Promise<(string | null)[]> {
    return evmContractsOf(await this.spotMeta(), indexes);
  }

  /** The spot token whose HyperEVM contract each of `contracts` is (null where none), from one spotMeta answer. */
  async spotTokensOfContracts(contracts: readonly string[]): Promise<(number | null)[]> {
    return spotTokensOfContracts(await this.spotMeta(), contracts);
  }

  /**
   * The node's metadata of a coin ("BTC", "xyz:XYZ100", "PURR/USDC", "@1", "#2901"); null when its dex or pair
   * list does not hold it. The node's answers are cached (metaTtlMs), so a list of markets asks it once.
   */
  marketInfo(coin: string): Promise<MarketInfo | null> {
    return marketInfoOf(coin, { meta: (dex) => this.meta(dex), spotMeta: () => this.spotMeta() });
  }

  // ---- live state ----

  /** Mid of every coin with a two-sided book, falling back to the last trade price (as the exchange does). */
  allMids(coins?: readonly string[]): Readonly<Record<string, string>> {
    // Recomputed only after a trade or a book change: between those, every caller gets the same (read-only) map.
    if (!this.midsCache) {
      const fresh: Record<string, string> = {};
      for (const [coin, px] of this.lastTradePx) fresh[coin] = px;
      this.midsCache = Object.assign(fresh, this.books.mids());
    }
    const mids = this.midsCache;
    if (!coins) return mids;
    return Object.fromEntries(coins.filter((c) => mids[c] !== undefined).map((c) => [c, mids[c] as string]));
  }

  /**
   * allMids as the exchange answers it without a `dex`: the first perp dex's coins and spot, not the HIP-3 dexes'
   * `dex:COIN` ones (those come with their `dex`). Cached like allMids.
   */
  firstDexMids(): Readonly<Record<string, string>> {
    if (!this.firstDexMidsCache) {
      const all = this.allMids();
      this.firstDexMidsCache = Object.fromEntries(Object.entries(all).filter(([coin]) => !isHip3Coin(coin)));
    }
    return this.firstDexMidsCache;
  }

  /**
   * allMids by the exchange's `dex` rule, the one every interface follows: without `dex` (or `""`) the first perp
   * dex's coins and spot (firstDexMids); with a HIP-3 dex, that dex's coins only (its node meta; UnknownDexError when
   * the node knows no such dex). `coins` keeps only those of them.
   */
  async dexMids({ dex = '', coins }: InputOf<typeof ALL_MIDS>): Promise<Readonly<Record<string, string>>> {
    const mids = dex === '' ? this.firstDexMids() : this.allMids((await this.meta(dex)).universe.map((u) => u.name));
    if (!coins) return mids;
    return Object.fromEntries(coins.filter((c) => mids[c] !== undefined).map((c) => [c, mids[c] as string]));
  }

  /**
   * The coins a live subscription follows (its `coin`, `coins` or `dex`, COIN_STREAM's rule), each once in the order
   * asked. A dex is every market the node lists on it now, delisted ones aside: "" the main dex's perps and the spot
   * pairs (as allMids without `dex`), a HIP-3 dex its `dex:COIN` perps; UnknownDexError when the node knows no such
   * dex.
   */
  async selectedCoins({ coin, coins, dex }: CoinSelection): Promise<string[]> {
    if (coin !== undefined) return [coin];
    if (coins !== undefined) return [...new Set(coins)];
    const perps = (await this.meta(dex)).universe.filter((u) => u.isDelisted !== true).map((u) => u.name);
    if (dex) return perps;
    return [...perps, ...(await this.spotMeta()).universe.map((u) => u.name)];
  }

  /** A coin's book (the exchange's l2Book shape), aggregated as asked (L2_BOOK's input); null without a book. */
  l2Book(q: InputOf<typeof L2_BOOK> & { nLevels?: number }): L2BookAnswer | null {
    return this.books.l2(q.coin, { ...q, levels: q.nLevels });
  }

  /** A coin's L4 book (L4_BOOK's input): every resting order with the node's record of it; null without a book. */
  l4Book(q: InputOf<typeof L4_BOOK>): L4BookAnswer | null {
    return this.books.l4(q.coin);
  }

  /**
   * Several coins' books at once (l2Books, L2_BOOKS's input): `coin → book` (the exchange's l2Book shape; null for a
   * coin without a book), in the order asked, a coin asked twice once.
   */
  l2Books(q: InputOf<typeof L2_BOOKS>): Map<string, L2BookAnswer | null> {
    return new Map(q.coins.map((coin) => [coin, this.books.l2(coin, q)]));
  }

  mid(coin: string): string | null {
    return this.books.mid(coin) ?? this.lastTradePx.get(coin) ?? null;
  }

  perpAssetCtx(coin: string): PerpAssetCtx {
    const c = this.ctxs.get(coin);
    const impact =
      c?.impact_bid_px && c.impact_ask_px ? ([c.impact_bid_px, c.impact_ask_px] as [string, string]) : null;
    return {
      funding: c?.funding ?? '0.0',
      openInterest: c?.open_interest ?? '0.0',
      prevDayPx: c?.prev_day_px ?? '0.0',
      dayNtlVlm: c?.day_ntl_vlm ?? '0.0',
      premium: c?.premium ?? null,
      oraclePx: c?.oracle_px ?? '0.0',
      markPx: c?.mark_px ?? this.mid(coin) ?? '0.0',
      midPx: this.books.mid(coin) ?? c?.mid_px ?? null,
      impactPxs: impact,
      dayBaseVlm: c?.day_base_vlm ?? '0.0',
    };
  }

  spotAssetCtx(coin: string): SpotAssetCtx {
    const c = this.ctxs.get(coin);
    return {
      prevDayPx: c?.prev_day_px ?? '0.0',
      dayNtlVlm: c?.day_ntl_vlm ?? '0.0',
      markPx: c?.mark_px ?? this.mid(coin) ?? '0.0',
      midPx: this.books.mid(coin) ?? c?.mid_px ?? null,
      circulatingSupply: c?.circulating_supply ?? '0.0',
      totalSupply: c?.total_supply ?? '0.0',
      coin,
      dayBaseVlm: c?.day_base_vlm ?? '0.0',
    };
  }

  async metaAndAssetCtxs(dex = ''): Promise<[PerpMeta, PerpAssetCtx[]]> {
    const meta = await this.meta(dex);
    return [meta, meta.universe.map((u) => this.perpAssetCtx(u.name))];
  }

  async spotMetaAndAssetCtxs(): Promise<[SpotMeta, SpotAssetCtx[]]> {
    const meta = await this.spotMeta();
    return [meta, meta.universe.map((u) => this.spotAssetCtx(u.name))];
  }

  hasCtx(coin: string): boolean {
    return this.ctxs.has(coin);
  }

  // ---- stored history ----

  recentTrades(coin: string, limit = 100): Promise<WireTrade[]> {
    return tradesOf(this.pool, { coin, limit });
  }

  /** A coin's trades of the window, most recent first (the input TRADES checked). */
  trades(q: InputOf<typeof TRADES>): Promise<WireTrade[]> {
    return tradesOf(this.pool, q);
  }

  /** A coin's candles from `startTime` to `endTime` (default now), oldest first (CANDLES's input). */
  candleSnapshot({ coin, interval, startTime, endTime }: InputOf<typeof CANDLES>) {
    const window = this.windowFrom(startTime, endTime);
    return candleSnapshot(this.pool, { coin, interval, ...window }, this.candles.recent(coin, interval));
  }

  /** The same candles as the exchange's JSON text (compat's candleSnapshot). */
  candleSnapshotJson({ coin, interval, startTime, endTime }: InputOf<typeof CANDLES>) {
    const window = this.windowFrom(startTime, endTime);
    return candleSnapshotJson(this.pool, { coin, interval, ...window }, this.candles.recent(coin, interval));
  }

  /** A coin's hourly funding rates from `startTime` to `endTime` (default now), oldest first. */
  fundingHistory(q: InputOf<typeof FUNDING_HISTORY>) {
    const window = this.windowFrom(q.startTime, q.endTime);
    return fundingHistory(this.pool, q.coin, window.startTime, window.endTime);
  }

  /** A window from `startTime` to `endTime`, now when absent; a FieldError when the start is after the end. */
  private windowFrom(startTime: number, endTime = this.now()): { startTime: number; endTime: number } {
    orderedWindow('startTime', startTime, endTime);
    return { startTime, endTime };
  }

  allReserveStates() {
    return allReserveStates(this.pool);
  }

  latestReserves() {
    return latestReserves(this.pool);
  }

  async latestReserve(token: number) {
    return (await latestReserves(this.pool)).find((r) => r.token === token) ?? null;
  }

  /**
   * Reserve samples (one token, or all), by default from 7 days before now up to now; `limit` 1 to
   * MAX_RESERVE_HISTORY, default RESERVE_HISTORY_DEFAULT_LIMIT; with `interval`, the last sample of each bucket.
   */
  reserveHistory(q: InputOf<typeof RESERVE_HISTORY>) {
    const now = this.now();
    const endTime = q.endTime ?? now;
    // The default window is the 7 days before its end (as documented), not before now: an end more than 7 days ago
    // with no start was refused as a start after the end.
    const startTime = q.startTime ?? endTime - RESERVE_WINDOW_MS;
    return reserveHistory(this.pool, { token: q.token, interval: q.interval, startTime, endTime, limit: q.limit });
  }

  /** The HIP-3 dexes with a snapshot (hip3Snapshots' dex_id, in its order). */
  hip3Dexes(): Promise<string[]> {
    return hip3Dexes(this.pool, this.ctxs);
  }

  hip3Snapshots(filter: { dexId?: string; coin?: string } = {}): Promise<Hip3Snapshot[]> {
    return hip3Snapshots(this.pool, this.ctxs, this.now(), filter, this.hip3Rollup);
  }

  /** HIP-3 coins ranked by the size of their 24 h price move, largest first (HIP3_TOP_MOVERS's input). */
  async hip3TopMovers({ limit }: InputOf<typeof HIP3_TOP_MOVERS>): Promise<Hip3Snapshot[]> {
    const rows = await this.hip3Snapshots();
    const move = (r: Hip3Snapshot) => Math.abs(priceMove(this.ctxs.get(r.coin)));
    return rows.sort((a, b) => move(b) - move(a)).slice(0, limit);
  }

  // ---- the market-history archive ----

  /** Coins with archived history. */
  historyCoins(): Promise<string[]> {
    return historyCoins(this.pool);
  }

  /** The archive's default window: the day before `endTime`, which defaults to now. */
  historyWindow(w: OptionalWindow): { startTime: number; endTime: number } {
    const endTime = w.endTime ?? this.now();
    return { startTime: w.startTime ?? endTime - HISTORY_WINDOW_MS, endTime };
  }

  /**
   * One series of a coin's archive in a window (see historyWindow), newest first, `limit` samples; `cursor` (a page's
   * nextCursor) continues with the samples before that page.
   */
  marketHistory(q: InputOf<typeof MARKET_HISTORY>) {
    const window = this.historyWindow(q);
    const before = q.cursor === undefined ? undefined : Number(q.cursor);
    return HISTORY_SERIES[q.series](this.pool, q.coin, { ...window, limit: q.limit, before });
  }

  /** A coin's averages over a window (see historyWindow): spread, depth per band, slippage per notional. */
  liquidityReport(q: InputOf<typeof LIQUIDITY_REPORT>) {
    const window = this.historyWindow(q);
    return liquidityReport(this.pool, q.coin, window.startTime, window.endTime);
  }

  /** The UTC dates on which each dataset holds rows, per coin (one coin, or every coin holding a row). */
  availableDates(q: InputOf<typeof AVAILABLE_DATES>) {
    return availableDates(this.pool, {
      coin: q.coin,
      datasets: q.dataset === undefined ? HISTORY_DATASET_NAMES : [q.dataset],
    });
  }
}
