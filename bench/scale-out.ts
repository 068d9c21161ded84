// Scale-out on NATS JetStream (issue 23), over the markets bench's database and simulated node, with api instances
// started as deployed, as processes of their own (`start.ts --role api`): two instances in one process would share
// its main thread, and its /ws writes would hold up both instances' GraphQL fan-out.
// - trade latency to clients of two api processes, printed beside the in-process bus's figures of the same run;
// - compat /info throughput of two api processes against one, on the same machine.
// Both need a NATS server with JetStream (BENCH_NATS_URL, else NATS_URL, else nats://127.0.0.1:4222); without one
// they print SKIPPED. They use a stream of their own, deleted at the end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect } from 'nats';
import { type OpenBus, openEventBus } from '../events/open.ts';
import { parseDuration } from '../platform/config.ts';
import { ROOT, spawnRunning, stopRunning, untilReady } from '../test/cli.ts';
import { type HttpTarget, type ThroughputResult, throughput } from './http-load.ts';
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
/** Load: two generator threads in both arrangements (both on one process, or one each), so the clients cost alike. */
const LOADS = 2;
const LOAD_CONCURRENCY = 16;
const ROUNDS = 3;
const LOAD = { concurrency: LOAD_CONCURRENCY, warmupMs: 1000, durationMs: 4000 };

interface ApiProcess {
  name: string;
  compatUrl: string;
  wsUrl: string;
  routerUrl: string;
  /** CPU seconds the process has used (user + system, all its threads); null where /proc is absent. */
  cpuSeconds(): number | null;
  stop(): Promise<void>;
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ: 100 on Linux everywhere). */
const USER_HZ = 100;

function cpuSecondsOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command (which may hold spaces) in parentheses; utime and stime are the 14th and 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return null;
  }
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
    return {
      name,
      compatUrl: compat.replace(/\/info$/, ''),
      wsUrl: ws,
      routerUrl: router,
      cpuSeconds: () => (pid === undefined ? null : cpuSecondsOf(pid)),
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

// ---- query throughput: two api processes against one ----

/** Requests/s of the LOADS generators together, each on its target, run at once. */
async function aggregate(targets: HttpTarget[]): Promise<{ requestsPerS: number; runs: ThroughputResult[] }> {
  const runs = await Promise.all(targets.map((t) => throughput(t, LOAD)));
  return { requestsPerS: runs.reduce((sum, r) => sum + r.requestsPerS, 0), runs };
}

const QUERIES = [
  { label: 'allMids', body: { type: 'allMids' } },
  { label: 'l2Book BTC', body: { type: 'l2Book', coin: 'BTC' } },
];

export async function benchApiThroughput(b: MarketsBench): Promise<BenchSection> {
  const unavailable = await natsUnavailable();
  if (unavailable) return skipped(unavailable);
  let processes: ApiProcess[] = [];
  try {
    processes = await startApiProcesses(b);
    const [a, bProcess] = processes as [ApiProcess, ApiProcess];
    for (const p of processes) {
      for (const q of QUERIES) {
        const { status, text } = await postJson(`${p.compatUrl}/info`, q.body);
        if (status !== 200 || text.length < 50)
          throw new Error(`${p.name} ${q.label}: ${status} ${text.slice(0, 200)}`);
      }
    }
    const rows: BenchRow[] = [];
    const notes: string[] = [];
    const cpu = { one: [0, 0], two: [0, 0] };
    for (const q of QUERIES) {
      const target = (p: ApiProcess): HttpTarget => ({ url: `${p.compatUrl}/info`, body: JSON.stringify(q.body) });
      const one: number[] = [];
      const two: number[] = [];
      const errors: string[] = [];
      // Alternating, so that the machine's drift does not all land on one arrangement.
      for (let round = 0; round < ROUNDS; round++) {
        for (const arrangement of ['one', 'two'] as const) {
          const targets = Array.from({ length: LOADS }, (_, i) =>
            target(arrangement === 'one' || i === 0 ? a : bProcess),
          );
          const before = processes.map((p) => p.cpuSeconds() ?? Number.NaN);
          const r = await aggregate(targets);
          const used = processes.map((p, i) => (p.cpuSeconds() ?? Number.NaN) - (before[i] as number));
          for (const [i, u] of used.entries()) cpu[arrangement][i] = (cpu[arrangement][i] as number) + u;
          (arrangement === 'one' ? one : two).push(r.requestsPerS);
          for (const run of r.runs) if (run.errors) errors.push(`${run.errors} errors (${run.firstError})`);
        }
      }
      const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
      // Each round's arrangements ran a few seconds apart: the median of their ratios is the least drift-prone.
      const ratios = two.map((t, i) => t / (one[i] as number)).sort((x, y) => x - y);
      const ratio = percentile(ratios, 0.5);
      rows.push({
        name: `compat ${q.label}, 2 api processes vs 1`,
        value: `${int(mean(two))} req/s`,
        baseline: `${int(mean(one))} on one`,
        ratio: ratio.toFixed(2),
        target: `reported (~1x on ${os.cpus().length} cores)`,
      });
      notes.push(
        `${q.label}: req/s all on A / split, by round: ${one.map((o, i) => `${int(o)} / ${int(two[i] as number)}`).join(', ')}` +
          (errors.length ? `; ${errors.slice(0, 3).join('; ')}` : ''),
      );
    }
    const seconds = (QUERIES.length * ROUNDS * (LOAD.warmupMs + LOAD.durationMs)) / 1000;
    const cores = (xs: number[]) => xs.map((x) => (x / seconds).toFixed(2)).join(' + ');
    notes.push(
      `load: ${LOADS} generator threads of ${LOAD_CONCURRENCY} keep-alive connections in both arrangements (both on ` +
        `process A, or one each on A and B), ${LOAD.warmupMs / 1000} s warm-up + ${LOAD.durationMs / 1000} s, ` +
        `${ROUNDS} rounds of both (ratio: the median round's; req/s: the means); the processes are \`start.ts --role api\` (PORT_OFFSET ${PORT_OFFSET} and ` +
        `${PORT_OFFSET + 100}) on this run's database and stream ${STREAM}`,
      `cores used by A + B: all on A ${cores(cpu.one)}, split ${cores(cpu.two)} (of ${os.cpus().length} on the ` +
        'machine, which also runs the load generators)',
      `why: both answers come from each instance's memory (books and mids kept from the stream), so an instance's ` +
        'ceiling is its own CPU: one main thread for compat. On 2 cores one process under this load already has a ' +
        'core and the load generators the other, so a second process only shares them: ~1x. With a core per ' +
        'process (and the clients elsewhere) N instances give ~N x on these in-memory queries; what they share is ' +
        'the NATS stream (one consumer each, not in the query path) and Postgres, which queries that read it ' +
        '(candles, fills) make the limit instead.',
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
    title: `scale-out: compat /info throughput of two api processes vs one (${LOADS} x ${LOAD_CONCURRENCY} connections, ${ROUNDS} rounds)`,
    run: benchApiThroughput,
  },
];
