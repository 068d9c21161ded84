// Scale-out on NATS JetStream (issue 23), over the markets bench's database and simulated node, with api instances
// started as deployed, as processes of their own (`start.ts --role api`): two instances in one process would share
// its main thread, and its /ws writes would hold up both instances' GraphQL fan-out.
// - trade latency to clients of two api processes, printed beside the in-process bus's figures of the same run;
// - compat /info throughput of two api processes against one, on the same machine, per api core: the processes and
//   the load generator pinned to cores (taskset) where it runs, with each one's CPU time taken from /proc.
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
import { type ProcessLoad, throughputProcess } from './http-load.ts';
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
const START_TIMEOUT_MS = 120_000;
/** Throughput load: one generator process, these connections in all (to A, or half to each of A and B). */
const CONNECTIONS = 32;
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

// ---- query throughput: two api processes against one, per api core ----

const QUERIES = [
  { label: 'allMids', body: { type: 'allMids' } },
  { label: 'l2Book BTC', body: { type: 'l2Book', coin: 'BTC' } },
];

/** Pinned: api A on core 0, B on core 1; the load on core 1 when A serves alone, on either core when both do. */
const CORE = { a: '0', b: '1', loadAlone: '1' };
/** Per api core, two processes against one: what "≥ 1.8× with a core each" asks of each core (1.8 / 2). */
const PER_CORE_TARGET = 0.9;
/** A core this busy over a window is counted full. */
const FULL = 0.9;

type Arrangement = 'one' | 'two';

interface Measured {
  requestsPerS: number;
  requests: number;
  /** CPU over the counted window: the machine's cores; processes A, B, then the load generator. */
  cpu: CpuWindow;
  errors: string[];
}

/** One load run: on A alone, or half on each of A and B; CPU times taken over the window the load counts in. */
async function measureArrangement(
  arrangement: Arrangement,
  processes: [ApiProcess, ApiProcess],
  body: unknown,
  pinned: boolean,
): Promise<Measured> {
  const serving = arrangement === 'one' ? [processes[0]] : processes;
  const load: ProcessLoad = {
    targets: serving.map((p) => ({ url: `${p.compatUrl}/info`, body: JSON.stringify(body) })),
    concurrency: CONNECTIONS / serving.length,
    ...LOAD,
    client: 'raw',
  };
  const window: { open?: { end(): CpuWindow }; cpu?: CpuWindow } = {};
  const results = await throughputProcess(load, {
    prefix: pinned && arrangement === 'one' ? pinnedPrefix(CORE.loadAlone) : undefined,
    onPhase: (phase, pid) => {
      if (phase === 'start') window.open = cpuWindow([...processes.map((p) => p.pid), pid]);
      else window.cpu = window.open?.end();
    },
  });
  if (!window.cpu) throw new Error('the load process did not say when it counted');
  return {
    requestsPerS: results.reduce((sum, r) => sum + r.requestsPerS, 0),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    cpu: window.cpu,
    errors: results.flatMap((r) => (r.errors ? [`${r.errors} errors (${r.firstError})`] : [])),
  };
}

const share = (seconds: number, w: CpuWindow) => percent(seconds / w.seconds);
const us = (seconds: number) => `${Math.round(seconds * 1e6)} µs`;

/** What the rounds of one arrangement add up to: its throughput, and the CPU each request cost the api and the load. */
function summarise(arrangement: Arrangement, runs: Measured[]) {
  const cpu = addWindows(runs.map((r) => r.cpu));
  const [a, b, load] = cpu.processes as [
    CpuWindow['processes'][0],
    CpuWindow['processes'][0],
    CpuWindow['processes'][0],
  ];
  const requests = runs.reduce((sum, r) => sum + r.requests, 0);
  const apiSeconds = arrangement === 'one' ? a.total : a.total + b.total;
  const ours = a.total + b.total + load.total;
  const busy = cpu.cores.reduce((sum, c) => sum + c, 0);
  return {
    cpu,
    requestsPerS: runs.reduce((sum, r) => sum + r.requestsPerS, 0) / runs.length,
    /** Requests per second of api CPU: what one api core serves. */
    perApiCore: requests / apiSeconds,
    apiCost: apiSeconds / requests,
    loadCost: load.total / requests,
    describe: (pinned: boolean) => {
      const names =
        arrangement === 'one'
          ? `A${pinned ? ` on core ${CORE.a}` : ''} alone, the load${pinned ? ` on core ${CORE.loadAlone}` : ''}`
          : `A${pinned ? ` on core ${CORE.a}` : ''} and B${pinned ? ` on core ${CORE.b}` : ''}, the load on either core`;
      const cores = cpu.cores.map((c, i) => `core ${i} ${share(c, cpu)}`).join(', ');
      const apis = (
        arrangement === 'one'
          ? [['A', a]]
          : [
              ['A', a],
              ['B', b],
            ]
      ) as [string, typeof a][];
      return (
        `${names}: ${cores} busy; ` +
        apis.map(([n, p]) => `api ${n} ${share(p.total, cpu)} (main thread ${share(p.main, cpu)})`).join(', ') +
        `, load ${share(load.total, cpu)}, other processes ${share(Math.max(0, busy - ours), cpu)} of a core; ` +
        `per request: api ${us(apiSeconds / requests)}, load ${us(load.total / requests)}`
      );
    },
    /** What held the arrangement's throughput, from its cores' business. */
    bound: (pinned: boolean): string => {
      const full = cpu.cores.map((c) => c / cpu.seconds >= FULL);
      if (!pinned || arrangement === 'two') {
        return full.every(Boolean)
          ? `every core full: ${cpu.cores.length} cores shared by the api${arrangement === 'two' ? 's' : ''}, the load and other work`
          : 'no core full: neither the apis nor the load had all of the machine (waiting on each other)';
      }
      const [apiCore, loadCore] = [full[Number(CORE.a)], full[Number(CORE.loadAlone)]];
      if (apiCore && !loadCore) return `api A's core (its main thread ${share(a.main, cpu)})`;
      if (loadCore && !apiCore) return `the load's core (the load ${share(load.total, cpu)})`;
      return apiCore ? 'both cores full (api A and the load alike)' : 'neither core full';
    },
  };
}

export async function benchApiThroughput(b: MarketsBench): Promise<BenchSection> {
  const unavailable = await natsUnavailable();
  if (unavailable) return skipped(unavailable);
  const pinned = pinning();
  let processes: ApiProcess[] = [];
  try {
    processes = await startApiProcesses(b);
    const pair = processes as [ApiProcess, ApiProcess];
    if (pinned) {
      pin(pair[0].pid, CORE.a);
      pin(pair[1].pid, CORE.b);
    }
    for (const p of processes) {
      for (const q of QUERIES) {
        const { status, text } = await postJson(`${p.compatUrl}/info`, q.body);
        if (status !== 200 || text.length < 50)
          throw new Error(`${p.name} ${q.label}: ${status} ${text.slice(0, 200)}`);
      }
    }
    const cores = os.cpus().length;
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    for (const q of QUERIES) {
      const runs: Record<Arrangement, Measured[]> = { one: [], two: [] };
      // Alternating, so that the machine's drift does not all land on one arrangement.
      for (let round = 0; round < ROUNDS; round++) {
        for (const arrangement of ['one', 'two'] as const) {
          runs[arrangement].push(await measureArrangement(arrangement, pair, q.body, pinned));
        }
      }
      const one = summarise('one', runs.one);
      const two = summarise('two', runs.two);
      // Each round's arrangements ran a few seconds apart: the median of their ratios is the least drift-prone.
      const ratio = percentile(
        runs.two.map((t, i) => t.requestsPerS / (runs.one[i]?.requestsPerS ?? Number.NaN)).sort((x, y) => x - y),
        0.5,
      );
      const perCore = two.perApiCore / one.perApiCore;
      // At the costs measured with A alone, the most 2 cores can serve: A with one and the load with the other
      // (the dearer of the two bounds), against both apis and the load sharing both cores.
      const bestOne = 1 / Math.max(one.apiCost, one.loadCost);
      const bestTwo = 2 / (one.apiCost + one.loadCost);
      const ceilingRatio = bestTwo / bestOne;
      rows.push({
        name: `compat ${q.label}, per api core, 2 apis vs 1`,
        value: `${int(two.perApiCore)} req/s`,
        baseline: `${int(one.perApiCore)} on one`,
        ratio: perCore.toFixed(2),
        target: `>= ${PER_CORE_TARGET} (2 apis with a core each >= 1.8x): ${met(perCore >= PER_CORE_TARGET)}`,
      });
      rows.push({
        name: `compat ${q.label}, 2 apis vs 1, ${cores} cores`,
        value: `${int(two.requestsPerS)} req/s`,
        baseline: `${int(one.requestsPerS)} on one`,
        ratio: ratio.toFixed(2),
        target: `>= 1.8x needs a core per api and the load elsewhere; at most ${ceilingRatio.toFixed(2)}x here`,
      });
      const errors = [...runs.one, ...runs.two].flatMap((r) => r.errors);
      notes.push(
        `${q.label}: req/s on A alone / on A and B, by round: ` +
          runs.one
            .map((o, i) => `${int(o.requestsPerS)} / ${int(runs.two[i]?.requestsPerS ?? Number.NaN)}`)
            .join(', ') +
          (errors.length ? `; ${errors.slice(0, 3).join('; ')}` : ''),
        `  one api: ${one.describe(pinned)}; bound: ${one.bound(pinned)}`,
        `  two apis: ${two.describe(pinned)}; bound: ${two.bound(pinned)}`,
        `  the load's own ceiling: ${int(1 / one.loadCost)} req/s per core of it; an api's: ${int(one.perApiCore)} ` +
          `per core; at these costs 2 cores serve at most ${int(bestTwo)} req/s with ` +
          `the load on them, ${ceilingRatio.toFixed(2)}x what one api does with the load on a core of its own`,
      );
    }
    notes.push(
      `load: one process (bench/http-load.ts, its lean client: pre-built requests on ${CONNECTIONS} keep-alive ` +
        `connections, to A or ${CONNECTIONS / 2} to each), ${LOAD.warmupMs / 1000} s warm-up + ` +
        `${LOAD.durationMs / 1000} s, ${ROUNDS} rounds of both (ratio: the median round's; req/s: the means); ` +
        (pinned
          ? `pinned with taskset: api A to core ${CORE.a}, B to core ${CORE.b}, the load to core ${CORE.loadAlone} ` +
            'when A serves alone, unpinned when both do (BENCH_PIN=0 turns pinning off); '
          : 'nothing pinned (no taskset, one core, or BENCH_PIN=0); ') +
        'CPU from /proc over the counted window; "per api core": requests per second of CPU the serving apis used; ' +
        `the processes are \`start.ts --role api\` (PORT_OFFSET ${PORT_OFFSET} and ${PORT_OFFSET + 100}) on this ` +
        `run's database and stream ${STREAM}`,
      "why: both answers come from each instance's memory (books and mids kept from the stream), so an instance's " +
        'ceiling is its own CPU, mostly one main thread. What the instances share, NATS (one consumer each) and ' +
        "Postgres, is not in these queries' path; per api core the second instance serves what the first does, and " +
        'N instances with a core each serve N times one, until the clients or the network are the limit. Postgres ' +
        'bounds the queries that read it (candles, fills, history) at whatever it sustains.',
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
    title: `scale-out: compat /info throughput of two api processes vs one, per api core (${CONNECTIONS} connections, ${ROUNDS} rounds, pinned with taskset where it runs)`,
    run: benchApiThroughput,
  },
];
