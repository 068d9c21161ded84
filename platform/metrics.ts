// Prometheus metrics of the service process (prom-client), served by compat-rest at GET /metrics (loopback only;
// compat-rest/metrics.ts). The router, in a thread of its own, serves its GraphQL metrics at its own /metrics
// (Hive Gateway's Prometheus plugin, router/server.ts).
//
// Request metrics are counted as requests end. What is a state rather than an event (pool connections, ingest
// progress, open /ws connections and subscriptions) is read at scrape time from the parts that hold it, which
// register here while they run: nothing is counted twice, and a stopped part stops being reported.
import type pg from 'pg';
import client from 'prom-client';

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'hl_' });

/** Latency buckets (seconds) from 1 ms to 10 s: answers from memory take a millisecond, archive reads seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new client.Counter({
  name: 'hl_http_requests_total',
  help: 'compat-rest HTTP requests by route pattern, method and status',
  labelNames: ['route', 'method', 'status'],
  registers: [registry],
});
export const httpDuration = new client.Histogram({
  name: 'hl_http_request_duration_seconds',
  help: 'compat-rest HTTP request latency by route pattern and method',
  labelNames: ['route', 'method'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
export const infoRequests = new client.Counter({
  name: 'hl_info_requests_total',
  help: 'POST /info requests by type and status (type "invalid" for a body naming no known type)',
  labelNames: ['type', 'status'],
  registers: [registry],
});
export const infoDuration = new client.Histogram({
  name: 'hl_info_request_duration_seconds',
  help: 'POST /info latency by type',
  labelNames: ['type'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** Counted where every interface's charge goes through (access/auth.ts chargeKey). */
export const creditsCharged = new client.Counter({
  name: 'hl_credits_charged_total',
  help: 'credits charged to keys, by endpoint (rest, ws, graphql, mcp)',
  labelNames: ['endpoint'],
  registers: [registry],
});

// ---- states read at scrape time ----

/** Something that reports its state at scrape time; `watch` returns the function that stops it. */
function sources<T>(): { set: Set<T>; watch(source: T): () => void } {
  const set = new Set<T>();
  return {
    set,
    watch(source) {
      set.add(source);
      return () => {
        set.delete(source);
      };
    },
  };
}

const pools = sources<{ name: string; pool: pg.Pool }>();
/** Reports a Postgres pool's connections (total, idle, and clients waiting for one) under `name`. */
export const watchPool = (name: string, pool: pg.Pool) => pools.watch({ name, pool });
new client.Gauge({
  name: 'hl_pg_pool_connections',
  help: 'Postgres pool connections by state (total, idle; waiting: clients queued for a connection)',
  labelNames: ['pool', 'state'],
  registers: [registry],
  collect() {
    this.reset();
    for (const { name, pool } of pools.set) {
      this.set({ pool: name, state: 'total' }, pool.totalCount);
      this.set({ pool: name, state: 'idle' }, pool.idleCount);
      this.set({ pool: name, state: 'waiting' }, pool.waitingCount);
    }
  },
});

/**
 * What the gauges read of one ingest stream (ingest/options.ts StreamStats is one): stated here, where it is read,
 * as platform imports nothing above it.
 */
export interface StreamStats {
  stream: string;
  rows: number;
  lastBlockTime: number | null;
}

const ingests = sources<() => StreamStats[]>();
/** Reports ingest's streams (ingest/pipeline.ts `stats`): rows loaded and lag behind the node, per stream. */
export const watchIngest = (stats: () => StreamStats[]) => ingests.watch(stats);
new client.Gauge({
  name: 'hl_ingest_rows_total',
  help: 'rows ingest has committed per stream since it started (rows/s: rate() of it)',
  labelNames: ['stream'],
  registers: [registry],
  collect() {
    this.reset();
    for (const stats of ingests.set) for (const s of stats()) this.inc({ stream: s.stream }, s.rows);
  },
});
new client.Gauge({
  name: 'hl_ingest_lag_seconds',
  help: "seconds between now and the block time of the newest row ingest read, per stream (absent before the stream's first block)",
  labelNames: ['stream'],
  registers: [registry],
  collect() {
    this.reset();
    const now = Date.now();
    for (const stats of ingests.set) {
      for (const s of stats())
        if (s.lastBlockTime !== null) this.set({ stream: s.stream }, (now - s.lastBlockTime) / 1000);
    }
  },
});

/** A domain writer's progress (kit/domain.ts `DomainWriter`): its checkpoint and what it has written. */
export interface WriterProgress {
  /** Every event before this is written (null: nothing yet). */
  cursor: number | null;
  /** Events it has derived since it started (the analytics writer: fills). */
  items: number;
}

const writers = sources<() => Readonly<Record<string, WriterProgress>>>();
/** Reports the domains' writers (the analytics derivation): how far behind now each checkpoint is, and what it derived. */
export const watchWriters = (progress: () => Readonly<Record<string, WriterProgress>>) => writers.watch(progress);
new client.Gauge({
  name: 'hl_derivation_lag_seconds',
  help: "seconds between now and a domain writer's checkpoint (every event before it is derived), per domain",
  labelNames: ['domain'],
  registers: [registry],
  collect() {
    this.reset();
    const now = Date.now();
    for (const progress of writers.set) {
      for (const [domain, { cursor }] of Object.entries(progress())) {
        if (cursor !== null) this.set({ domain }, (now - cursor) / 1000);
      }
    }
  },
});
new client.Gauge({
  name: 'hl_derivation_fills_total',
  help: 'events a domain writer has derived since it started (analytics: fills), per domain',
  labelNames: ['domain'],
  registers: [registry],
  collect() {
    this.reset();
    for (const progress of writers.set) {
      for (const [domain, { items }] of Object.entries(progress())) this.inc({ domain }, items);
    }
  },
});

/** A /ws server's state: its open connections and its live subscriptions by channel. */
export interface WsState {
  connections(): number;
  subscriptions(): Map<string, number>;
}
const wsServers = sources<WsState>();
export const watchWs = (ws: WsState) => wsServers.watch(ws);
new client.Gauge({
  name: 'hl_ws_connections',
  help: 'open /ws connections',
  registers: [registry],
  collect() {
    this.set([...wsServers.set].reduce((n, ws) => n + ws.connections(), 0));
  },
});
new client.Gauge({
  name: 'hl_ws_subscriptions',
  help: 'live /ws subscriptions by channel',
  labelNames: ['channel'],
  registers: [registry],
  collect() {
    this.reset();
    for (const ws of wsServers.set) for (const [channel, n] of ws.subscriptions()) this.inc({ channel }, n);
  },
});

/** Whether a peer address is this machine: /metrics answers only those (no key needed, none accepted instead). */
export function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1';
}
