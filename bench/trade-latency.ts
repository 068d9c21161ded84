// Trade latency from the ingest bus to /ws and graphql-ws clients, beside a bare fan-out of the same frames (the
// markets bench's fourth section; the scale-out bench measures the same over NATS with measureTrades).

import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { TradeRow } from '../db/rows/markets.ts';
import { toWireTrade } from '../domains/markets/service/market-data.ts';
import { startBareFanout } from './bare-fanout.ts';
import type { MarketsBench } from './markets.ts';
import { type BenchRow, type BenchSection, int, met, ms, percent, postJson, sleep, until } from './section.ts';
import { LatencyHistogram } from './stats.ts';
import { type SubscriberProtocol, type SubscriberResult, Subscribers, stampHash, wallMs } from './subscribers.ts';

export const TRADES_PER_S = 1000;
export const BLOCK_MS = 100;
export const MEASURE_MS = 10_000;
export const LATENCY_TARGET_MS = 50;
const GRAPHQL_SUBSCRIPTION = 'subscription { trades(coin: "BTC") { px time hash tid } }';
/** The /ws subscription (the bare baseline acknowledges it the same way). */
const TRADES_CHANNEL = { type: 'trades', coin: 'BTC' };

/**
 * What publishes the trades the clients time: stamped with their publish time (stampHash), as measured or warm-up
 * by the phase `begin` starts.
 */
export interface TradeSource {
  /** (Re)starts a phase: warm-up trades are not counted by the clients. */
  begin(measuring: boolean): void;
  /** Ends the measured phase: what follows is not counted. */
  stop(): void;
  /** Trades published in the measured phase (of one coin, or of all), and the phase's length. */
  measured(coin?: string): number;
  readonly measuredMs: number;
}

/** Synthetic BTC trades published at a fixed rate (on the ingest bus, or to the bare baseline), one batch per block. */
class TradePublisher implements TradeSource {
  private timer: NodeJS.Timeout | null = null;
  private phaseStart = 0;
  /** Trades published in this phase, and trades skipped because the timer ran late. */
  private sentInPhase = 0;
  private skippedInPhase = 0;
  private measuring = false;
  /**
   * Above any height the stack has stored (mainnet's are ~10^9): a stored stream (GraphQL's trades) sends a live block
   * only after the blocks it read from the store, as ingest's always are.
   */
  private block = 10_000_000_000;
  private tid = 1;
  measuredTrades = 0;
  measuredMs = 0;

  constructor(private readonly publish: (trades: TradeRow[]) => void) {}

  measured(): number {
    return this.measuredTrades;
  }

  /** (Re)starts the clock of a phase: warm-up trades are not counted by the clients. */
  begin(measuring: boolean): void {
    this.stop();
    this.measuring = measuring;
    this.phaseStart = performance.now();
    this.sentInPhase = 0;
    this.skippedInPhase = 0;
    this.timer = setInterval(() => this.tick(), BLOCK_MS);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    if (this.measuring) {
      this.measuredTrades = this.sentInPhase;
      this.measuredMs = performance.now() - this.phaseStart;
    }
  }

  private tick(): void {
    // A late timer publishes what is due, but at most two blocks' worth: a stalled server is not fed a burst that
    // stalls it further, and the rate it really sustained is reported instead.
    const perBlock = (TRADES_PER_S * BLOCK_MS) / 1000;
    const owed =
      Math.floor(((performance.now() - this.phaseStart) * TRADES_PER_S) / 1000) -
      this.sentInPhase -
      this.skippedInPhase;
    const due = Math.min(owed, 2 * perBlock);
    if (due <= 0) return;
    this.skippedInPhase += owed - due;
    const block = this.block++;
    const at = wallMs();
    const hash = stampHash(this.measuring, at);
    const trades: TradeRow[] = [];
    for (let seq = 0; seq < due; seq++) {
      trades.push({
        block_number: block,
        seq,
        time: Math.floor(at),
        coin: 'BTC',
        side: seq % 2 ? 'A' : 'B',
        px: (90_000 + (seq % 40) * 0.5).toFixed(1),
        sz: '0.01234',
        hash,
        tid: this.tid++,
        buyer: '0x56fb916e2767e1048b78e3c76532b8b104febc76',
        seller: '0x7f34dc766b0ea373eefd9a03beb46df2898d88d4',
        fees: '0.5',
      });
    }
    this.sentInPhase += due;
    this.publish(trades);
  }
}

/** One group of clients: `count` of them over `protocol`, each with the same subscription. */
export interface Audience {
  label: string;
  protocol: SubscriberProtocol;
  /** The server, or several (client i on the i-th). */
  url: string | readonly string[];
  count: number;
  /** The subscription; an array gives client i its i-th entry (modulo its length). */
  subscription: unknown;
  /** The coin of each subscription (one, or one per entry of `subscription`); unset: every trade published. */
  coin?: string | readonly string[];
  /** Real trades: a frame's trade ids are not consecutive, so each trade is counted (subscribers.ts readStamps). */
  scan?: boolean;
}

interface Heard {
  audience: Audience;
  histogram: LatencyHistogram;
  result: SubscriberResult;
  /** The measured trade events the audience's clients should have received together. */
  expected: number;
  /** Every client received every measured trade. */
  complete: boolean;
}

/** The measured trades an audience's clients are owed together: each its coin's. */
function owed(audience: Audience, source: TradeSource): number {
  const { coin, count } = audience;
  if (coin === undefined) return source.measured() * count;
  const coins = typeof coin === 'string' ? [coin] : coin;
  let total = 0;
  for (let i = 0; i < count; i++) total += source.measured(coins[i % coins.length]);
  return total;
}

export interface TradeRun {
  heard: Heard[];
  /** Trades published in the measured phase. */
  expected: number;
  measuredMs: number;
  /** Event-loop delay of this thread while measuring (p99 and max, ms). */
  loopP99: number;
  loopMax: number;
}

/**
 * Connects the audiences (each in its own client thread), publishes warm-up trades until every client has seen one,
 * goes on for `settleMs`, then publishes MEASURE_MS of measured trades and collects what each client received.
 * `measuring` brackets the measured phase (the caller samples its threads' busy share there).
 */
export function measureTrades(
  publish: (trades: TradeRow[]) => void,
  audiences: Audience[],
  measuring: (phase: 'start' | 'end') => void = () => {},
  settleMs = 1000,
): Promise<TradeRun> {
  return measureFanout(new TradePublisher(publish), audiences, measuring, settleMs);
}

/** measureTrades over any source of stamped trades (scale.ts: ingest replaying node files). */
export async function measureFanout(
  publisher: TradeSource,
  audiences: Audience[],
  measuring: (phase: 'start' | 'end') => void = () => {},
  settleMs = 1000,
): Promise<TradeRun> {
  const subscribers: { audience: Audience; subs: Subscribers }[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  try {
    for (const audience of audiences) {
      const { protocol, url, count, subscription, scan } = audience;
      const subs = await Subscribers.start(protocol, url, count, subscription, 60_000, 1, scan);
      subscribers.push({ audience, subs });
    }
    // graphql-ws never acknowledges a subscription: warm up until every client has seen a trade.
    publisher.begin(false);
    const live = await until(() => subscribers.every(({ subs }) => subs.live === subs.count), 30_000);
    if (!live) {
      const seen = subscribers.map(({ audience, subs }) => `${audience.label} ${subs.live}/${subs.count}`).join(', ');
      const errors = [];
      for (const { subs } of subscribers) errors.push(...(await subs.stop().catch(() => ({ errors: [] }))).errors);
      throw new Error(`not every client got a warm-up trade (${seen}): ${errors.join(' | ')}`);
    }
    await sleep(settleMs);
    publisher.begin(true);
    loop.enable();
    measuring('start');
    await sleep(MEASURE_MS);
    measuring('end');
    publisher.stop();
    await until(
      () =>
        subscribers.every(({ audience, subs }) => subs.received >= owed(audience, publisher) || subs.failed !== null),
      15_000,
    );
    loop.disable();
    const heard: Heard[] = [];
    for (const { audience, subs } of subscribers) {
      const result = await subs.stop();
      const expected = owed(audience, publisher);
      heard.push({
        audience,
        result,
        histogram: LatencyHistogram.from(result),
        expected,
        complete: result.total === expected,
      });
    }
    return {
      heard,
      expected: publisher.measured(),
      measuredMs: publisher.measuredMs,
      loopP99: loop.percentile(99) / 1e6,
      loopMax: loop.max / 1e6,
    };
  } finally {
    publisher.stop();
    loop.disable();
    for (const { subs } of subscribers) await subs.stop(1000).catch(() => {});
  }
}

/** The bench's clients: `ws` on /ws (or its floor), `graphqlWs` through the router (or its floor). */
export function tradeAudiences(
  clients: { ws: number; graphqlWs: number },
  urls: { ws: string | readonly string[]; graphqlWs: string | readonly string[] },
): Audience[] {
  const all: Audience[] = [
    { label: '/ws', protocol: 'ws', url: urls.ws, count: clients.ws, subscription: TRADES_CHANNEL },
    {
      label: 'graphql-ws (router)',
      protocol: 'graphql-ws',
      url: urls.graphqlWs,
      count: clients.graphqlWs,
      subscription: GRAPHQL_SUBSCRIPTION,
    },
  ];
  return all.filter((a) => a.count > 0);
}

type EventLoopUse = ReturnType<typeof performance.eventLoopUtilization>;

/** Busy shares (event-loop utilization) of named threads over measureTrades' measured phase. */
export function busyShares(threads: Record<string, (from?: EventLoopUse) => EventLoopUse>) {
  const from: Record<string, EventLoopUse> = {};
  const shares: Record<string, number> = {};
  const measuring = (phase: 'start' | 'end') => {
    for (const [name, use] of Object.entries(threads)) {
      if (phase === 'start') from[name] = use();
      else shares[name] = use(from[name]).utilization;
    }
  };
  return { shares, measuring };
}

/**
 * The router loads its supergraph on its first HTTP request; a graphql-ws subscription arriving before any fails
 * with "Expected null to be a GraphQL schema", so the router gets one query first.
 */
export async function warmRouter(routerUrl: string): Promise<void> {
  const warm = await postJson(routerUrl, { query: '{ __typename }' });
  if (warm.status !== 200) throw new Error(`router: ${warm.status} ${warm.text}`);
}

export interface InProcessTrades {
  clients: { ws: number; graphqlWs: number };
  run: TradeRun;
  /** Busy shares of the main thread and the router thread while measuring. */
  busy: Record<'main' | 'router', number>;
}

/** Trades on the stack's in-process bus to its /ws and graphql-ws clients; kept on the fixture for later sections. */
export async function measureInProcessTrades(
  b: MarketsBench,
  clients: { ws: number; graphqlWs: number },
): Promise<InProcessTrades> {
  await warmRouter(b.stack.urls.router);
  const busy = busyShares({
    main: (from) => performance.eventLoopUtilization(from),
    router: (from) => b.stack.routerEventLoop(from),
  });
  const run = await measureTrades(
    (trades) => b.bus.publish('trades', trades),
    tradeAudiences(clients, { ws: b.stack.urls.ws, graphqlWs: b.stack.urls.router.replace(/^http/, 'ws') }),
    busy.measuring,
  );
  b.inProcessTrades = { clients, run, busy: { main: busy.shares.main ?? 0, router: busy.shares.router ?? 0 } };
  return b.inProcessTrades;
}

/** A trade's path from the ingest bus to /ws and graphql-ws clients, beside the bare fan-out of the same frames. */
export async function benchTradeLatency(
  b: MarketsBench,
  clients: { ws: number; graphqlWs: number } = { ws: 500, graphqlWs: 500 },
): Promise<BenchSection> {
  const bare = await startBareFanout();
  let floor: TradeRun;
  try {
    floor = await measureTrades(
      (trades) => bare.publish(trades.map(toWireTrade)),
      tradeAudiences(clients, { ws: bare.wsUrl, graphqlWs: bare.graphqlWsUrl }),
    );
  } finally {
    await bare.close();
  }
  const { run, busy } = await measureInProcessTrades(b, clients);

  const rows: BenchRow[] = [];
  const notes = [
    `offered ${int(TRADES_PER_S)} trades/s in blocks every ${BLOCK_MS} ms; published ${int(run.expected)} in ` +
      `${(run.measuredMs / 1000).toFixed(1)} s (${int((run.expected * 1000) / run.measuredMs)}/s: ` +
      'blocks due while the event loop was late are skipped, and that wait is not in the latencies) to ' +
      `${clients.ws} /ws + ${clients.graphqlWs} graphql-ws clients at once (each in its worker thread); ` +
      `server event-loop delay p99 ${ms(run.loopP99)}, max ${ms(run.loopMax)}; ` +
      `busy: main thread ${percent(busy.main)} (ingest bus, subgraphs, compat), router thread ` +
      `${percent(busy.router)}; ` +
      `graphql-ws: ${GRAPHQL_SUBSCRIPTION} (hash carries the publish time)`,
    'baseline "bare": the same frames to the same clients from plain ws servers, /ws on the main thread and ' +
      'graphql-ws on a worker thread that gets each block first, with nothing in between (bench/bare-fanout.ts): ' +
      floor.heard
        .map(
          ({ audience, histogram: h, complete }) =>
            `${audience.label} p50 ${ms(h.quantile(0.5))}, p99 ${ms(h.quantile(0.99))}, max ${ms(h.max)}` +
            (complete ? '' : ' (INCOMPLETE: some clients missed trades)'),
        )
        .join('; '),
  ];
  for (const [i, heard] of run.heard.entries()) {
    const { audience, histogram: h, result: r, complete } = heard;
    const p99 = h.quantile(0.99);
    const floorP99 = floor.heard[i]?.histogram.quantile(0.99) ?? Number.NaN;
    rows.push({
      name: `trade bus -> ${audience.label} p99`,
      value: ms(p99),
      baseline: `bare ${ms(floorP99)}`,
      ratio: (p99 / floorP99).toFixed(2),
      target: `p99 < ${LATENCY_TARGET_MS} ms: ${met(p99 < LATENCY_TARGET_MS && complete)}`,
    });
    notes.push(
      `${audience.label}: ${audience.count} clients, p50 ${ms(h.quantile(0.5))}, p99 ${ms(p99)}, max ${ms(h.max)}; ` +
        `received ${int(r.total)} of ${int(heard.expected)} trade events (fewest per client ` +
        `${int(r.minPerClient)}); client thread busy ${Math.round(r.clientBusy * 100)} %` +
        (r.lost ? `; ${r.lost} connections lost` : '') +
        (r.errors.length ? `; ${r.errors.join(' | ')}` : ''),
    );
  }
  return { rows, notes };
}
