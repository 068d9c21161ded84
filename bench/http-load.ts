// HTTP load generated in a worker thread: keep-alive clients in a closed loop at a fixed concurrency (throughput),
// or one request at a time (latency). Every request is a POST of a JSON body, or a GET (path endpoints); any status
// but 200 is an error. The throughput loop also runs in processes of their own (throughputProcesses), which a bench can
// pin to cores, with a lean client that writes pre-built requests to its sockets: node's http client costs a
// good part of what the server's answer does, and a generator as dear as the server cannot show its ceiling.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { percentile, timeSequential } from './stats.ts';
import { runWorker } from './worker.ts';

export interface HttpTarget {
  url: string;
  /** The JSON body of a POST (ignored for a GET). */
  body: string;
  /** POST by default. */
  method?: 'GET' | 'POST';
  /** Sent with every request besides the JSON content type (a key, MCP's Accept). */
  headers?: Record<string, string>;
}

export interface ThroughputResult {
  requestsPerS: number;
  requests: number;
  errors: number;
  firstError: string | null;
  avgBytes: number;
}

export interface LatencyResult {
  p50Ms: number;
  p99Ms: number;
  /** Every successful request's time, ascending (ms). */
  times: number[];
  requests: number;
  errors: number;
  firstError: string | null;
  avgBytes: number;
}

/** `http`: node's http client with a keep-alive agent; `raw`: one socket per connection, requests pre-built. */
export type LoadClient = 'http' | 'raw';

type Job = { role: 'http-load'; target: HttpTarget } & (
  | { mode: 'throughput'; concurrency: number; warmupMs: number; durationMs: number; client?: LoadClient }
  | { mode: 'sequential'; warmup: number; requests: number }
  | { mode: 'concurrent'; concurrency: number; warmup: number; requests: number; maxMs?: number }
);

type Answer = { ok: true; result: ThroughputResult | LatencyResult } | { ok: false; error: string };

const REQUEST_TIMEOUT_MS = 10_000;

/** Requests/s over `durationMs` after `warmupMs` of the same load, at `concurrency` connections. */
export async function throughput(
  target: HttpTarget,
  opts: { concurrency: number; warmupMs: number; durationMs: number },
): Promise<ThroughputResult> {
  const job: Job = { role: 'http-load', target, mode: 'throughput', ...opts };
  return (await run(job, opts.warmupMs + opts.durationMs + 30_000)) as ThroughputResult;
}

/** A throughput load run by a process of its own (throughputProcess): `concurrency` connections to each target. */
export interface ProcessLoad {
  targets: HttpTarget[];
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  client: LoadClient;
}

/** What a load process says on its stdout, a line each: loaded, started and stopped counting, then its result. */
const READY = 'ready';
const MEASURING = 'measuring';
const MEASURED = 'measured';
const RESULT = 'result ';
/** What it waits for on its stdin before it starts its load. */
const GO = 'go';
const THIS_FILE = fileURLToPath(import.meta.url);

/** One load process: what it runs, and the command prefix that starts it (e.g. ['taskset', '-c', '1']). */
export interface LoadProcess {
  load: ProcessLoad;
  prefix?: string[];
}

/**
 * Runs each load in a node process of its own (a prefix such as taskset execs node in its own pid), all starting
 * their load at once, once every one has loaded. `onPhase` hears when the first starts counting and the last stops,
 * with their pids, so that the caller can take CPU times over the same window (the loads share warm-up and
 * duration: their windows differ by the few ms their `go` took to arrive). Returns each process's results, one per
 * target, in order.
 */
export async function throughputProcesses(
  loads: LoadProcess[],
  onPhase?: (phase: 'start' | 'end', pids: number[]) => void,
): Promise<ThroughputResult[][]> {
  const pids: number[] = [];
  let ready = 0;
  let measuring = 0;
  let measured = 0;
  const children = loads.map(({ load, prefix }) => {
    const node = [process.execPath, '--import', 'tsx', THIS_FILE, JSON.stringify(load)];
    const [command, ...args] = [...(prefix ?? []), ...node] as [string, ...string[]];
    // A session of its own (an autogroup of its own, as the api processes have): each load is entitled to its
    // share of a busy machine's CPU, not a part of the bench's.
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    if (child.pid !== undefined) pids.push(child.pid);
    const run = {
      command: [command, ...args.slice(0, -1)].join(' '),
      stderr: '',
      result: null as ThroughputResult[] | null,
    };
    child.stderr.on('data', (d: Buffer) => {
      run.stderr += d;
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d;
      for (let nl = stdout.indexOf('\n'); nl >= 0; nl = stdout.indexOf('\n')) {
        const line = stdout.slice(0, nl);
        stdout = stdout.slice(nl + 1);
        if (line === READY && ++ready === loads.length) for (const c of children) c.child.stdin.write(`${GO}\n`);
        else if (line === MEASURING && ++measuring === 1) onPhase?.('start', pids);
        else if (line === MEASURED && ++measured === loads.length) onPhase?.('end', pids);
        else if (line.startsWith(RESULT)) run.result = JSON.parse(line.slice(RESULT.length)) as ThroughputResult[];
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), load.warmupMs + load.durationMs + 120_000);
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve)).finally(() => {
      clearTimeout(timer);
      // One that failed leaves the others waiting for their `go`: end them.
      if (!run.result) for (const c of children) c.child.kill('SIGKILL');
    });
    return { child, run, exited, load };
  });
  const results: ThroughputResult[][] = [];
  for (const { run, exited, load, child } of children) {
    const code = await exited;
    if (!run.result) {
      throw new Error(`load process ${run.command} (exit ${code ?? child.signalCode}): ${run.stderr}`);
    }
    for (const [i, r] of run.result.entries()) {
      if (r.requests === 0) throw new Error(`load on ${load.targets[i]?.url}: no successful request (${r.firstError})`);
    }
    results.push(run.result);
  }
  return results;
}

/** Latency of `requests` requests sent one after another, after `warmup` untimed ones. */
export async function sequential(
  target: HttpTarget,
  opts: { warmup: number; requests: number },
): Promise<LatencyResult> {
  const job: Job = { role: 'http-load', target, mode: 'sequential', ...opts };
  return (await run(job, (opts.warmup + opts.requests) * REQUEST_TIMEOUT_MS + 30_000)) as LatencyResult;
}

/**
 * Latency under load: `concurrency` callers in a closed loop, `requests` timed requests among them after `warmup`
 * untimed ones (counted over all callers); no request starts after `maxMs` (a read far slower than its bound).
 */
export async function concurrent(
  target: HttpTarget,
  opts: { concurrency: number; warmup: number; requests: number; maxMs?: number },
): Promise<LatencyResult> {
  const job: Job = { role: 'http-load', target, mode: 'concurrent', ...opts };
  return (await run(job, (opts.warmup + opts.requests) * REQUEST_TIMEOUT_MS + 30_000)) as LatencyResult;
}

/**
 * A POST end to end against its baseline (e.g. the SQL behind it), in alternating rounds: the machine's speed
 * drifts during a run (a shared 2-core VM), and measuring one after the other would put the drift in the ratio.
 * Returns both sets of times, sorted.
 */
export async function versusBaseline(
  target: HttpTarget,
  baseline: () => Promise<unknown>,
  opts: { rounds: number; perRound: number; warmup: number },
): Promise<{ e2e: number[]; base: number[]; avgBytes: number }> {
  const r = await targetsVersusBaseline({ e2e: target }, baseline, opts);
  return { e2e: r.e2e.e2e, base: r.base, avgBytes: r.avgBytes.e2e };
}

/** versusBaseline for several targets, each measured in every round before the baseline. */
export async function targetsVersusBaseline<K extends string>(
  targets: Record<K, HttpTarget>,
  baseline: () => Promise<unknown>,
  opts: { rounds: number; perRound: number; warmup: number },
): Promise<{ e2e: Record<K, number[]>; base: number[]; avgBytes: Record<K, number> }> {
  const entries = Object.entries(targets) as [K, HttpTarget][];
  const e2e = Object.fromEntries(entries.map(([name]) => [name, [] as number[]])) as Record<K, number[]>;
  const avgBytes = Object.fromEntries(entries.map(([name]) => [name, 0])) as Record<K, number>;
  const base: number[] = [];
  for (let round = 0; round < opts.rounds; round++) {
    for (const [name, target] of entries) {
      const r = await sequential(target, { warmup: opts.warmup, requests: opts.perRound });
      if (r.errors) throw new Error(`${target.url}: ${r.firstError}`);
      e2e[name].push(...r.times);
      avgBytes[name] += r.avgBytes / opts.rounds;
    }
    base.push(...(await timeSequential(baseline, opts.warmup, opts.perRound)));
  }
  const sort = (a: number[]) => a.sort((x, y) => x - y);
  for (const [name] of entries) sort(e2e[name]);
  return { e2e, base: sort(base), avgBytes };
}

async function run(job: Job, timeoutMs: number): Promise<ThroughputResult | LatencyResult> {
  const answer = await runWorker<Answer>(new URL(import.meta.url), job, timeoutMs);
  if (!answer.ok) throw new Error(`load on ${job.target.url}: ${answer.error}`);
  if (answer.result.requests === 0) {
    throw new Error(`load on ${job.target.url}: no successful request (${answer.result.firstError ?? 'no error'})`);
  }
  return answer.result;
}

// ---- worker side ----

interface Outcome {
  status: number;
  bytes: number;
}

function poster(target: HttpTarget, agent: http.Agent): () => Promise<Outcome> {
  const url = new URL(target.url);
  const isGet = target.method === 'GET';
  const body = Buffer.from(isGet ? '' : target.body);
  const options: http.RequestOptions = {
    agent,
    host: url.hostname,
    port: url.port,
    path: url.pathname + url.search,
    method: isGet ? 'GET' : 'POST',
    headers: isGet
      ? { ...target.headers }
      : { ...target.headers, 'content-type': 'application/json', 'content-length': body.length },
  };
  return () =>
    new Promise<Outcome>((resolve, reject) => {
      const req = http.request(options, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('request timed out')));
      req.end(body);
    });
}

const describe = (o: Outcome | Error) => (o instanceof Error ? o.message : `HTTP ${o.status}`);

/**
 * One keep-alive connection of the lean client: the request's bytes built once, written as they are, and an answer
 * read as a status line, headers and a content-length body (what fastify sends for a JSON body it has whole).
 */
function rawConnection(target: HttpTarget): { post: () => Promise<Outcome>; close(): void } {
  const url = new URL(target.url);
  const isGet = target.method === 'GET';
  const body = Buffer.from(isGet ? '' : target.body);
  const headers: Record<string, string> = isGet
    ? { host: url.host, ...target.headers }
    : { host: url.host, ...target.headers, 'content-type': 'application/json', 'content-length': `${body.length}` };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  const request = Buffer.concat([
    Buffer.from(`${isGet ? 'GET' : 'POST'} ${url.pathname}${url.search} HTTP/1.1\r\n${head.join('')}\r\n`),
    body,
  ]);
  let socket: net.Socket | null = null;
  let waiting: { resolve: (o: Outcome) => void; reject: (e: Error) => void } | null = null;
  let chunks: Buffer[] = [];
  let received = 0;
  /** The whole answer's length and its status, once its headers are in. */
  let answer: { length: number; status: number; bytes: number } | null = null;

  const fail = (err: Error) => {
    socket?.destroy();
    socket = null;
    const w = waiting;
    waiting = null;
    w?.reject(err);
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
    if (!answer) {
      const buffer = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      chunks = [buffer];
      const end = buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const headText = buffer.toString('latin1', 0, end);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(headText)?.[1];
      if (length === undefined) return fail(new Error('raw client: an answer without content-length'));
      answer = { length: end + 4 + Number(length), status: Number(headText.slice(9, 12)), bytes: Number(length) };
    }
    if (received < answer.length) return;
    if (received > answer.length) return fail(new Error('raw client: more bytes than the answer announced'));
    const done = { status: answer.status, bytes: answer.bytes };
    chunks = [];
    received = 0;
    answer = null;
    const w = waiting;
    waiting = null;
    w?.resolve(done);
  };
  const open = () => {
    const s = net.connect({ host: url.hostname, port: Number(url.port), noDelay: true });
    s.on('data', onData);
    s.on('error', fail);
    s.on('close', () => fail(new Error('connection closed')));
    return s;
  };
  return {
    post: () =>
      new Promise<Outcome>((resolve, reject) => {
        waiting = { resolve, reject };
        socket ??= open();
        socket.write(request);
      }),
    close: () => {
      socket?.destroy();
      socket = null;
    },
  };
}

async function runThroughput(job: Extract<Job, { mode: 'throughput' }>): Promise<ThroughputResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
  const httpPost = poster(job.target, agent);
  const from = performance.now() + job.warmupMs;
  const until = from + job.durationMs;
  let requests = 0;
  let errors = 0;
  let bytes = 0;
  let firstError: string | null = null;
  const connection = async () => {
    const raw = job.client === 'raw' ? rawConnection(job.target) : null;
    const post = raw?.post ?? httpPost;
    while (performance.now() < until) {
      let outcome: Outcome | Error;
      try {
        outcome = await post();
      } catch (err) {
        outcome = err instanceof Error ? err : new Error(String(err));
      }
      const t = performance.now();
      if (t < from || t > until) continue;
      if (!(outcome instanceof Error) && outcome.status === 200) {
        requests++;
        bytes += outcome.bytes;
      } else {
        errors++;
        firstError ??= describe(outcome);
        // A refusing server answers at once; don't spin on it.
        await new Promise((r) => setTimeout(r, 10));
      }
    }
    raw?.close();
  };
  await Promise.all(Array.from({ length: job.concurrency }, connection));
  agent.destroy();
  return {
    requestsPerS: requests / (job.durationMs / 1000),
    requests,
    errors,
    firstError,
    avgBytes: requests ? bytes / requests : 0,
  };
}

/** Sequential (one caller) or concurrent latency: each request timed, the first `warmup` of all left out. */
async function runLatency(job: Extract<Job, { mode: 'sequential' | 'concurrent' }>): Promise<LatencyResult> {
  const callers = job.mode === 'concurrent' ? job.concurrency : 1;
  const agent = new http.Agent({ keepAlive: true, maxSockets: callers });
  const post = poster(job.target, agent);
  const times: number[] = [];
  let errors = 0;
  let bytes = 0;
  let firstError: string | null = null;
  let next = 0;
  const deadline =
    performance.now() + ((job.mode === 'concurrent' ? job.maxMs : undefined) ?? Number.POSITIVE_INFINITY);
  const caller = async () => {
    for (let i = next++; i < job.warmup + job.requests && performance.now() < deadline; i = next++) {
      const t = performance.now();
      let outcome: Outcome | Error;
      try {
        outcome = await post();
      } catch (err) {
        outcome = err instanceof Error ? err : new Error(String(err));
      }
      const ms = performance.now() - t;
      if (i < job.warmup) continue;
      if (!(outcome instanceof Error) && outcome.status === 200) {
        times.push(ms);
        bytes += outcome.bytes;
      } else {
        errors++;
        firstError ??= describe(outcome);
      }
    }
  };
  await Promise.all(Array.from({ length: callers }, caller));
  agent.destroy();
  times.sort((a, b) => a - b);
  return {
    p50Ms: percentile(times, 0.5),
    p99Ms: percentile(times, 0.99),
    times,
    requests: times.length,
    errors,
    firstError,
    avgBytes: times.length ? bytes / times.length : 0,
  };
}

if (!isMainThread && (workerData as Partial<Job> | null)?.role === 'http-load') {
  const job = workerData as Job;
  (job.mode === 'throughput' ? runThroughput(job) : runLatency(job)).then(
    (result) => parentPort?.postMessage({ ok: true, result } satisfies Answer),
    (err: unknown) =>
      parentPort?.postMessage({ ok: false, error: err instanceof Error ? err.message : String(err) } satisfies Answer),
  );
}

if (isMainThread && process.argv[1] === THIS_FILE) {
  const load = JSON.parse(process.argv[2] ?? '') as ProcessLoad;
  process.stdout.write(`${READY}\n`);
  for await (const line of createInterface({ input: process.stdin })) if (line === GO) break;
  process.stdin.destroy();
  setTimeout(() => process.stdout.write(`${MEASURING}\n`), load.warmupMs);
  setTimeout(() => process.stdout.write(`${MEASURED}\n`), load.warmupMs + load.durationMs);
  const results = await Promise.all(
    load.targets.map((target) =>
      runThroughput({
        role: 'http-load',
        target,
        mode: 'throughput',
        concurrency: load.concurrency,
        warmupMs: load.warmupMs,
        durationMs: load.durationMs,
        client: load.client,
      }),
    ),
  );
  process.stdout.write(`${RESULT}${JSON.stringify(results)}\n`);
}
