// Scale-out on NATS JetStream (issue 23), over the markets bench's database and simulated node, with api instances
// started as deployed, as processes of their own (`start.ts --role api`): two instances in one process would share
// its main thread, and its /ws writes would hold up both instances' GraphQL fan-out.
// - trade latency to clients of two api processes, printed beside the in-process bus's figures of the same run;
// - compat /info throughput of two api processes against one, on the same machine, a core each: the processes and
//   their load generators pinned to cores (taskset) where it runs, with each one's CPU time taken from /proc.
// Both need a NATS server with JetStream (BENCH_NATS_URL, else NATS_URL, else nats://127.0.0.1:4222); without one
// they print SKIPPED. They use a stream of their own, deleted at the end.
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect } from 'nats';
import { type OpenBus, openEventBus } from '../events/open.ts';
import { parseDuration } from '../platform/config.ts';
import { ROOT, spawnRunning, stopRunning, untilReady } from '../test/cli.ts';
import { addWindows, type CpuWindow, cpuSecondsOf, cpuWindow, pin, pinnedPrefix, pinning } from './cores.ts';
import { type LoadProcess, throughputProcesses } from './http-load.ts';
import type { MarketsBench } from './markets.ts';
import { type BenchRow, type BenchSection, int, met, ms, percent, postJson } from './section.ts';
import { percentile } from './stats.ts';
import {
  BLOCK_MS,
  LATENCY_TARGET_MS,
  MEASURE_MS,
  measureInProcessTrades,
  measureTrades,
  TRADES_PER_S,
  tradeAudiences,
  warmRouter,
} from './trade-latency.ts';

const NATS_URL = process.env.BENCH_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
/** A stream of the bench's own (its subjects are its name in lower case, as NATS_STREAM's are). */
const STREAM = `HLBENCH_${process.pid}`;
/** BUS_RETENTION of the bench's stream: it only needs to outlive a section. */
const RETENTION = '10m';

/** Why NATS cannot be used (no server, no JetStream), or null. */
async function natsUnavailable(): Promise<string | null> {
  try {
    const nc = await connect({ servers: NATS_URL, timeout: 2000, reconnect: false });
    try {
      await nc.jetstreamManager();
      return null;
    } finally {
      await nc.close();
    }
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

const skipped = (reason: string): BenchSection => ({
  rows: [],
  notes: [`SKIPPED: no NATS JetStream at ${NATS_URL} (${reason}); set BENCH_NATS_URL to run this section`],
});

async function deleteStream(): Promise<void> {
  const nc = await connect({ servers: NATS_URL, timeout: 2000, reconnect: false });
  try {
    await (await nc.jetstreamManager()).streams.delete(STREAM).catch(() => false);
  } finally {
    await nc.close();
  }
}

const openBenchBus = () => openEventBus({ natsUrl: NATS_URL, stream: STREAM, retainMs: parseDuration(RETENTION) });

// ---- api processes: `start.ts --role api`, as deployed ----

/** PORT_OFFSET of the first api process (the second's is 100 more): below the ephemeral port range. */
const PORT_OFFSET = Number(process.env.BENCH_API_PORT_OFFSET ?? 20_000);
/** Long: on this shared VM, under other work (load average 20), an api process has taken over 2 minutes to start. */
const START_TIMEOUT_MS = 300_000;
/** Throughput load: a generator process per api, of these connections. */
const CONNECTIONS = 16;
const ROUNDS = 3;
const LOAD = { warmupMs: 1000, durationMs: 4000 };

interface ApiProcess {
  name: string;
  compatUrl: string;
  wsUrl: string;
  routerUrl: string;
  pid: number;
  /** CPU seconds the process has used (user + system, all its threads); null where /proc is absent. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/** `start.ts --role api` on the bench's database, the bench's stream and the simulated node, once it says ready. */
async function startApiProcess(b: MarketsBench, name: string, portOffset: number): Promise<ApiProcess> {
  const running = spawnRunning(process.execPath, ['--import', 'tsx', path.join(ROOT, 'start.ts'), '--role', 'api'], {
    cwd: ROOT,
    // A session of its own, as a deployed role has its own service: Linux's autogroup scheduling shares the CPU
    // between sessions, so two api processes in the bench's session would share one entitlement.
    detached: true,
    env: {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? 'production',
      DATABASE_URL: b.databaseUrl,
      // Not a replica of the bench's database, whatever the environment says.
      DATABASE_READ_URL: '',
      NATS_URL,
      NATS_STREAM: STREAM,
      BUS_RETENTION: RETENTION,
      UPSTREAM_INFO_URL: b.upstreamInfoUrl,
      PORT_OFFSET: String(portOffset),
      HOST: '127.0.0.1',
    },
  });
  try {
    await untilReady(running, `api process ${name} (PORT_OFFSET=${portOffset})`, START_TIMEOUT_MS);
    // The URLs of its start lines ("compat REST       http://127.0.0.1:28080/info").
    const url = (label: string) => new RegExp(`^${label}\\s+(\\S+)`, 'm').exec(running.output())?.[1];
    const [compat, ws, router] = [url('compat REST'), url('compat WebSocket'), url('router GraphQL')];
    if (!compat || !ws || !router) throw new Error(`api process ${name}: a URL missing from ${running.output()}`);
    const pid = running.child.pid;
    if (pid === undefined) throw new Error(`api process ${name}: no pid`);
    return {
      name,
      compatUrl: compat.replace(/\/info$/, ''),
      wsUrl: ws,
      routerUrl: router,
      pid,
      cpuSeconds: () => cpuSecondsOf(pid),
      stop: () => stopRunning(running),
    };
  } catch (err) {
    await stopRunning(running);
    throw err;
  }
}

/** Both api processes, started together (each takes seconds to load its services' state). */
async function startApiProcesses(b: MarketsBench): Promise<ApiProcess[]> {
  const started = await Promise.allSettled(
    ['A', 'B'].map((name, i) => startApiProcess(b, name, PORT_OFFSET + 100 * i)),
  );
  const processes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s) => s.status === 'rejected');
  if (failed) {
    for (const p of processes) await p.stop().catch(() => {});
    throw failed.reason;
  }
  return processes;
}

// ---- trade latency: two api processes on NATS beside the in-process bus ----

const CLIENTS = { ws: 500, graphqlWs: 500 };
/**
 * Trades before measuring, once every client is live: the api processes are fresh, and their first seconds of
 * fan-out run cold code (p99 50–60 ms in the first 10 s of a run, 34–39 ms in the next 10 s, on a quiet machine).
 */
const SETTLE_MS = 5000;

export async function benchNatsTradeLatency(b: MarketsBench): Promise<BenchSection> {
  const unavailable = await natsUnavailable();
  if (unavailable) return skipped(unavailable);
  const inProcess = b.inProcessTrades ?? (await measureInProcessTrades(b, CLIENTS));

  let processes: ApiProcess[] = [];
  let ingestBus: OpenBus | null = null;
  try {
    ingestBus = await openBenchBus();
    processes = await startApiProcesses(b);
    for (const p of processes) await warmRouter(p.routerUrl);
    // Each protocol's clients in one thread, as in-process, alternating between the instances: half on each.
    const audiences = tradeAudiences(CLIENTS, {
      ws: processes.map((p) => p.wsUrl),
      graphqlWs: processes.map((p) => p.routerUrl.replace(/^http/, 'ws')),
    });
    let cpuFrom: { at: number; api: number[]; bench: NodeJS.CpuUsage } | null = null;
    const cores = { api: [] as number[], bench: 0 };
    const bus = ingestBus;
    let publishError: string | null = null;
    const run = await measureTrades(
      // The stamp is taken before the publish: the latency includes NATS storing the batch and delivering it.
      (trades) => {
        Promise.resolve(bus.publish('trades', trades)).catch((err: unknown) => {
          publishError ??= err instanceof Error ? err.message : String(err);
        });
      },
      audiences,
      (phase) => {
        const api = processes.map((p) => p.cpuSeconds() ?? Number.NaN);
        if (phase === 'start') cpuFrom = { at: performance.now(), api, bench: process.cpuUsage() };
        else if (cpuFrom) {
          const s = (performance.now() - cpuFrom.at) / 1000;
          cores.api = api.map((c, i) => (c - (cpuFrom?.api[i] as number)) / s);
          const bench = process.cpuUsage(cpuFrom.bench);
          cores.bench = (bench.user + bench.system) / 1e6 / s;
        }
      },
      SETTLE_MS,
    );
    if (publishError) throw new Error(`publishing on ${STREAM}: ${publishError}`);

    const rows: BenchRow[] = [];
    const notes = [
      `offered ${int(TRADES_PER_S)} trades/s in blocks every ${BLOCK_MS} ms, published on JetStream stream ` +
        `${STREAM} at ${NATS_URL} from this process (publish awaits the server's ack; the stamp is taken before); ` +
        `published ${int(run.expected)} in ${(run.measuredMs / 1000).toFixed(1)} s to two api processes ` +
        `(\`start.ts --role api\`, PORT_OFFSET ${PORT_OFFSET} and ${PORT_OFFSET + 100}), each following the stream; ` +
        `${CLIENTS.ws} /ws + ${CLIENTS.graphqlWs} graphql-ws clients, half on each, one client thread per protocol, ` +
        `measured after ${SETTLE_MS / 1000} s of trades; ` +
        `cores used while measuring: api A ${cores.api[0]?.toFixed(2)}, api B ${cores.api[1]?.toFixed(2)}, this ` +
        `process (publisher, client threads) ${cores.bench.toFixed(2)}, of ${os.cpus().length}`,
      `baseline "in-proc": this run's in-process bus, one stack, ${inProcess.clients.ws} /ws + ` +
        `${inProcess.clients.graphqlWs} graphql-ws clients (busy main ${percent(inProcess.busy.main)}, ` +
        `router ${percent(inProcess.busy.router)})`,
    ];
    for (const [i, { audience, histogram: h, result: r, complete }] of run.heard.entries()) {
      const p99 = h.quantile(0.99);
      const base = inProcess.run.heard[i]?.histogram;
      const baseP99 = base?.quantile(0.99) ?? Number.NaN;
      rows.push({
        name: `trade NATS x2 -> ${audience.label} p99`,
        value: ms(p99),
        baseline: `in-proc ${ms(baseP99)}`,
        ratio: (p99 / baseP99).toFixed(2),
        target: `p99 < ${LATENCY_TARGET_MS} ms: ${met(p99 < LATENCY_TARGET_MS && complete)}`,
      });
      notes.push(
        `${audience.label}: ${audience.count} clients, p50 ${ms(h.quantile(0.5))}, p99 ${ms(p99)}, max ` +
          `${ms(h.max)} (in-proc p50 ${ms(base?.quantile(0.5) ?? Number.NaN)}); received ${int(r.total)} of ` +
          `${int(run.expected * audience.count)} trade events; client thread busy ${percent(r.clientBusy)}` +
          (r.lost ? `; ${r.lost} connections lost` : '') +
          (r.errors.length ? `; ${r.errors.join(' | ')}` : ''),
      );
    }
    return { rows, notes };
  } finally {
    for (const p of processes) await p.stop().catch(() => {});
    await ingestBus?.close().catch(() => {});
    await deleteStream().catch(() => {});
  }
}

// ---- query throughput: two api processes against one, a core each ----

const QUERIES = [
  { label: 'allMids', body: { type: 'allMids' } },
  { label: 'l2Book BTC', body: { type: 'l2Book', coin: 'BTC' } },
];

/**
 * The arrangements, pinned: `one`, api A and its load on core 0; `two`, A and its load on core 0, B and its own on
 * core 1 (a core each, each with its clients: like with like); `alone`, A on core 0 and its load on core 1 (what an
 * api serves with a core to itself). Unpinned, `alone` would be `one` again and is left out.
 */
const ARRANGEMENTS = {
  one: { api: [0], loadCore: [0] },
  two: { api: [0, 1], loadCore: [0, 1] },
  alone: { api: [0], loadCore: [1] },
} as const;
type Arrangement = keyof typeof ARRANGEMENTS;
/** The core api A (index 0) and B (index 1) are pinned to. */
const API_CORE = [0, 1];
const SCALE_TARGET = 1.8;
/** Per api core, two processes against one: what "≥ 1.8× with a core each" asks of each core (1.8 / 2). */
const PER_CORE_TARGET = SCALE_TARGET / 2;
/** A core this busy over a window is counted full. */
const FULL = 0.9;
/** Past this much CPU of other processes while measuring (this process, Postgres and NATS idle meanwhile), the figures are not judged. */
const QUIET_OTHER_CORES = 0.3;

interface Measured {
  requestsPerS: number;
  requests: number;
  /** CPU over the counted window: the machine's cores; processes A, B, then each load process. */
  cpu: CpuWindow;
  errors: string[];
}

/** One run of an arrangement; CPU times taken over the window the loads count in. */
async function measureArrangement(
  arrangement: Arrangement,
  processes: [ApiProcess, ApiProcess],
  body: unknown,
  pinned: boolean,
): Promise<Measured> {
  const { api, loadCore } = ARRANGEMENTS[arrangement];
  const loads: LoadProcess[] = api.map((p, i) => ({
    load: {
      targets: [{ url: `${processes[p]?.compatUrl}/info`, body: JSON.stringify(body) }],
      concurrency: CONNECTIONS,
      ...LOAD,
      client: 'raw',
    },
    prefix: pinned ? pinnedPrefix(String(loadCore[i])) : undefined,
  }));
  const window: { open?: { end(): CpuWindow }; cpu?: CpuWindow } = {};
  const results = await throughputProcesses(loads, (phase, pids) => {
    if (phase === 'start') window.open = cpuWindow([...processes.map((p) => p.pid), ...pids]);
    else window.cpu = window.open?.end();
  });
  if (!window.cpu) throw new Error('the load processes did not say when they counted');
  const all = results.flat();
  return {
    requestsPerS: all.reduce((sum, r) => sum + r.requestsPerS, 0),
    requests: all.reduce((sum, r) => sum + r.requests, 0),
    cpu: window.cpu,
    errors: all.flatMap((r) => (r.errors ? [`${r.errors} errors (${r.firstError})`] : [])),
  };
}

const share = (seconds: number, w: CpuWindow) => percent(seconds / w.seconds);
const us = (seconds: number) => `${Math.round(seconds * 1e6)} µs`;
const NAMES = ['A', 'B'];

/** The rounds of one arrangement added up: throughput, CPU per request, and where the CPU went, core by core. */
function summarise(arrangement: Arrangement, runs: Measured[], pinned: boolean) {
  const { api, loadCore }: { api: readonly number[]; loadCore: readonly number[] } = ARRANGEMENTS[arrangement];
  const cpu = addWindows(runs.map((r) => r.cpu));
  const total = (i: number) => cpu.processes[i]?.total ?? Number.NaN;
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const apiSeconds = api.reduce((sum, p) => sum + total(p), 0);
  const loadSeconds = api.reduce((sum, _, i) => sum + total(2 + i), 0);
  /** Who ran on each core, pinned: the api processes (B idles in `one` and `alone`) and the loads. */
  const onCore = (core: number) => [
    ...API_CORE.flatMap((c, p) => (c === core ? [{ name: `api ${NAMES[p]}`, index: p }] : [])),
    ...loadCore.flatMap((c, i) => (c === core ? [{ name: `load ${NAMES[api[i] ?? 0]}`, index: 2 + i }] : [])),
  ];
  const perCore = cpu.cores.map((busy, core) => {
    const who = pinned ? onCore(core) : [];
    const ours = who.reduce((sum, w) => sum + total(w.index), 0);
    const names = who
      .filter((w) => total(w.index) / cpu.seconds >= 0.02)
      .map((w) => {
        const main = w.index < 2 ? ` (main thread ${share(cpu.processes[w.index]?.main ?? Number.NaN, cpu)})` : '';
        return `${w.name} ${share(total(w.index), cpu)}${main}`;
      });
    const parts = pinned ? [...names, `other ${share(Math.max(0, busy - ours), cpu)}`] : names;
    return {
      core,
      full: busy / cpu.seconds >= FULL,
      text: `core ${core} ${share(busy, cpu)} busy${parts.length ? `: ${parts.join(', ')}` : ''}`,
    };
  });
  const unpinned = pinned
    ? ''
    : `; ${[...api.map((p) => `api ${NAMES[p]} ${share(total(p), cpu)}`), `loads ${share(loadSeconds, cpu)}`].join(', ')}`;
  const full = perCore.filter((c) => c.full).map((c) => c.core);
  const ours = cpu.processes.reduce((sum, p) => sum + p.total, 0);
  return {
    /** Cores the rest of the machine used meanwhile (this process, Postgres, NATS, anyone else's work). */
    otherCores: Math.max(0, cpu.cores.reduce((sum, c) => sum + c, 0) - ours) / cpu.seconds,
    requestsPerS: runs.reduce((sum, r) => sum + r.requestsPerS, 0) / runs.length,
    /** Requests per second of api CPU: what one api core serves. */
    perApiCore: requests / apiSeconds,
    apiCost: apiSeconds / requests,
    loadCost: loadSeconds / requests,
    describe: () =>
      `${perCore.map((c) => c.text).join('; ')}${unpinned}; CPU per request: api ${us(apiSeconds / requests)}, ` +
      `load ${us(loadSeconds / requests)}`,
    /** What held the throughput: the cores that were full (and whose they were), or none. */
    bound: (): string => {
      if (!full.length) return 'no core full (the processes waited on each other, or on the machine)';
      if (arrangement === 'alone' && pinned) {
        const [apiFull, loadFull] = [full.includes(API_CORE[0] ?? 0), full.includes(loadCore[0] ?? 1)];
        if (apiFull && !loadFull) return "api A's core";
        if (loadFull && !apiFull) return "the load's core";
        return 'both cores (api A and the load alike)';
      }
      return `core${full.length > 1 ? 's' : ''} ${full.join(' and ')} full`;
    },
  };
}

/** The rounds' ratios of `x` to `y` (the arrangements of a round ran seconds apart): their median is the least drift-prone. */
const medianRatio = (x: Measured[], y: Measured[]) =>
  percentile(
    x.map((m, i) => m.requestsPerS / (y[i]?.requestsPerS ?? Number.NaN)).sort((p, q) => p - q),
    0.5,
  );

export async function benchApiThroughput(b: MarketsBench): Promise<BenchSection> {
  const unavailable = await natsUnavailable();
  if (unavailable) return skipped(unavailable);
  const pinned = pinning();
  const arrangements: Arrangement[] = pinned ? ['one', 'two', 'alone'] : ['one', 'two'];
  let processes: ApiProcess[] = [];
  try {
    processes = await startApiProcesses(b);
    const pair = processes as [ApiProcess, ApiProcess];
    if (pinned) for (const [i, p] of pair.entries()) pin(p.pid, String(API_CORE[i]));
    for (const p of processes) {
      for (const q of QUERIES) {
        const { status, text } = await postJson(`${p.compatUrl}/info`, q.body);
        if (status !== 200 || text.length < 50)
          throw new Error(`${p.name} ${q.label}: ${status} ${text.slice(0, 200)}`);
      }
    }
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    for (const q of QUERIES) {
      const runs: Record<Arrangement, Measured[]> = { one: [], two: [], alone: [] };
      // Alternating, so that the machine's drift does not all land on one arrangement.
      for (let round = 0; round < ROUNDS; round++) {
        for (const arrangement of arrangements) {
          runs[arrangement].push(await measureArrangement(arrangement, pair, q.body, pinned));
        }
      }
      const one = summarise('one', runs.one, pinned);
      const two = summarise('two', runs.two, pinned);
      const scale = medianRatio(runs.two, runs.one);
      const perCore = two.perApiCore / one.perApiCore;
      const aCore = pinned ? ', a core each' : ', unpinned';
      // The figures measure the apis only while the cores are theirs: with other work on them, they measure it.
      const other = Math.max(one.otherCores, two.otherCores);
      const judge = (ok: boolean) =>
        other <= QUIET_OTHER_CORES ? met(ok) : `not judged: other work ran on ${other.toFixed(2)} cores`;
      rows.push(
        {
          name: `compat ${q.label}, 2 apis vs 1${aCore}`,
          value: `${int(two.requestsPerS)} req/s`,
          baseline: `${int(one.requestsPerS)} on one`,
          ratio: scale.toFixed(2),
          target: `>= ${SCALE_TARGET}x (api and its load on a core): ${judge(pinned && scale >= SCALE_TARGET)}`,
        },
        {
          name: `compat ${q.label}, per api CPU, 2 apis vs 1`,
          value: `${int(two.perApiCore)} req/s`,
          baseline: `${int(one.perApiCore)} on one`,
          ratio: perCore.toFixed(2),
          target: `>= ${PER_CORE_TARGET} (the same per core): ${judge(perCore >= PER_CORE_TARGET)}`,
        },
      );
      const errors = Object.values(runs)
        .flat()
        .flatMap((r) => r.errors);
      notes.push(
        `${q.label}: req/s by round (${arrangements.join(' / ')}): ` +
          Array.from({ length: ROUNDS }, (_, i) =>
            arrangements.map((a) => int(runs[a][i]?.requestsPerS ?? Number.NaN)).join(' / '),
          ).join(', ') +
          (errors.length ? `; ${errors.slice(0, 3).join('; ')}` : ''),
        `  one api${pinned ? ', A and its load on core 0' : ''}: ${one.describe()}; bound: ${one.bound()}; ` +
          `other work on the machine ${one.otherCores.toFixed(2)} cores`,
        `  two apis${pinned ? ', A and its load on core 0, B and its own on core 1' : ''}: ${two.describe()}; ` +
          `bound: ${two.bound()}; other work on the machine ${two.otherCores.toFixed(2)} cores`,
      );
      if (pinned) {
        const alone = summarise('alone', runs.alone, pinned);
        const ratio = medianRatio(runs.alone, runs.one);
        rows.push({
          name: `compat ${q.label}, 1 api, its load on the other core`,
          value: `${int(alone.requestsPerS)} req/s`,
          baseline: `${int(one.requestsPerS)} on its core`,
          ratio: ratio.toFixed(2),
          target: `reported; bound: ${alone.bound()}`,
        });
        notes.push(
          `  one api alone on core 0, its load on core 1: ${alone.describe()}; bound: ${alone.bound()}; the load's ` +
            `own ceiling ${int(1 / alone.loadCost)} req/s per core of it, an api's ${int(alone.perApiCore)}`,
        );
      }
    }
    notes.push(
      `load: a process per api (bench/http-load.ts, its lean client: pre-built requests on ${CONNECTIONS} ` +
        `keep-alive connections), started together, ${LOAD.warmupMs / 1000} s warm-up + ${LOAD.durationMs / 1000} ` +
        `s, ${ROUNDS} rounds of every arrangement (ratios: the median round's; req/s: the means); ` +
        (pinned
          ? 'pinned with taskset, each thread of the process (BENCH_PIN=0 turns pinning off); "other": what the ' +
            'rest of the machine (this process, Postgres, other work) ran on that core; '
          : 'nothing pinned (no taskset, one core, or BENCH_PIN=0); ') +
        'CPU from /proc over the counted window; "per api CPU": requests per second of CPU the serving apis used; ' +
        `the processes are \`start.ts --role api\` (PORT_OFFSET ${PORT_OFFSET} and ${PORT_OFFSET + 100}) on this ` +
        `run's database and stream ${STREAM}`,
      "why: both answers come from each instance's memory (books and mids kept from the stream), so an instance's " +
        'ceiling is its own CPU, mostly its main thread; what the instances share, NATS (a consumer each) and ' +
        "Postgres, is not in these queries' path. So a second instance with a core of its own serves what the " +
        'first does, and N instances N times one, until the clients, the network or other work on the cores are ' +
        'the limit. Postgres bounds the queries that read it (candles, fills, history) at whatever it sustains.',
    );
    return { rows, notes };
  } finally {
    for (const p of processes) await p.stop().catch(() => {});
    await deleteStream().catch(() => {});
  }
}

/** The sections in the order they run (after the markets ones, on the same fixture). */
export const SCALE_OUT_SECTIONS: { title: string; run: (b: MarketsBench) => Promise<BenchSection> }[] = [
  {
    title: `scale-out: trade latency over NATS JetStream to two api processes, ${CLIENTS.ws / 2} /ws + ${CLIENTS.graphqlWs / 2} graphql-ws clients on each (${TRADES_PER_S} trades/s, ${MEASURE_MS / 1000} s measured)`,
    run: benchNatsTradeLatency,
  },
  {
    title: `scale-out: compat /info throughput of two api processes vs one, a core each (${CONNECTIONS} connections per api, ${ROUNDS} rounds, pinned with taskset where it runs)`,
    run: benchApiThroughput,
  },
];
