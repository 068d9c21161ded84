// `npm run simulate`: writes history ending now into the node data dir, then serves the node's /info and keeps
// producing blocks in real time. A restart with the same parameters resumes the same timeline where the files
// end (the simulation is a pure function of seed, start and options), so ingest checkpoints stay valid.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from '../../platform/config.ts';
import { DEFAULT_FILLS_PER_SECOND } from './index.ts';
import { type NodeInfoServer, startNodeInfoServer } from './node-info.ts';
import { MAINNET, parseCascadeAt, parseProfile } from './profile.ts';
import {
  DEFAULT_HISTORY_FILLS_PER_SECOND,
  DEFAULT_LEAN_FILLS_PER_SECOND,
  openTimeline,
  resetTimeline,
  type TimelineParams,
} from './timeline.ts';

const root = path.resolve(import.meta.dirname, '../..');

const USAGE = `usage: node --import tsx ingest/simulator/cli.ts [options]
  --data-dir DIR            node data dir to write (default .data/hl/data, env SIM_DATA_DIR)
  --seed N                  random seed (default 42, env SIM_SEED)
  --profile P               default | mainnet (env SIM_PROFILE): mainnet's shape (ingest/simulator/README.md
                            "The mainnet profile"); its defaults: history ${MAINNET.defaultHistory}, detailed ${MAINNET.defaultDetailedHistory},
                            ${MAINNET.fillsPerSecond} fills/s throughout, ${MAINNET.blocksPerSecond} blocks/s, ${MAINNET.traderPool} traders
  --cascade-at T[,T...]     mainnet profile: a liquidation cascade minute from each T, an ISO time or an offset
                            from now (+10m, -30m) (env SIM_CASCADE_AT)
  --order-statuses-per-second N
                            mainnet profile: order statuses a second (default ${MAINNET.orderStatusesPerSecond},
                            env SIM_ORDER_STATUSES_PER_SECOND)
  --history D               history to write before now: 7d, 36h, 90m, 30s, 0 (default 7d, env SIM_HISTORY)
  --detailed-history D      the last part of it written with every stream; before it, lean: no order statuses
                            or book diffs (default 6h, env SIM_DETAILED_HISTORY)
  --fills-per-second N      average fills per second in real time and the last 5 minutes of history
                            (default ${DEFAULT_FILLS_PER_SECOND}, env SIM_FILLS_PER_SECOND)
  --history-fills-per-second N
                            average fills per second of the history before that, and of the gap a restart
                            fills (default ${DEFAULT_HISTORY_FILLS_PER_SECOND}, env SIM_HISTORY_FILLS_PER_SECOND)
  --lean-fills-per-second N average fills per second of the lean history
                            (default ${DEFAULT_LEAN_FILLS_PER_SECOND}, env SIM_LEAN_FILLS_PER_SECOND)
  --users N                 traders (default 300)
  --blocks-per-second N     L1 blocks per second (default 5)
  --port N                  node /info port (default 3001, env SIM_PORT; 0 = any free port)
  --host H                  listen address (default 127.0.0.1)
  --no-realtime             write the history and exit
  --reset                   delete the streams already in the data dir and start a new timeline
  --help`;

function positiveNumber(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`--${name} must be a non-negative number, got ${JSON.stringify(text)}`);
  return value;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      seed: { type: 'string' },
      profile: { type: 'string' },
      'cascade-at': { type: 'string' },
      'order-statuses-per-second': { type: 'string' },
      history: { type: 'string' },
      'detailed-history': { type: 'string' },
      'lean-fills-per-second': { type: 'string' },
      'fills-per-second': { type: 'string' },
      'history-fills-per-second': { type: 'string' },
      users: { type: 'string' },
      'blocks-per-second': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'no-realtime': { type: 'boolean', default: false },
      reset: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const env = process.env;
  const dataDir = path.resolve(root, values['data-dir'] ?? (env.SIM_DATA_DIR || '.data/hl/data'));
  const profile = parseProfile(values.profile ?? env.SIM_PROFILE);
  const mainnet = profile === 'mainnet';
  const cascadeAt = values['cascade-at'] ?? env.SIM_CASCADE_AT;
  const statuses = values['order-statuses-per-second'] ?? env.SIM_ORDER_STATUSES_PER_SECOND;
  if (!mainnet && (cascadeAt || statuses)) {
    throw new Error('--cascade-at and --order-statuses-per-second need --profile mainnet');
  }
  const wanted: TimelineParams = {
    seed: Math.floor(positiveNumber('seed', values.seed ?? env.SIM_SEED, 42)),
    users: Math.max(2, Math.floor(positiveNumber('users', values.users, mainnet ? MAINNET.traderPool : 300))),
    blocksPerSecond:
      positiveNumber('blocks-per-second', values['blocks-per-second'], mainnet ? MAINNET.blocksPerSecond : 5) || 5,
    fillsPerSecond: positiveNumber(
      'fills-per-second',
      values['fills-per-second'] ?? env.SIM_FILLS_PER_SECOND,
      mainnet ? MAINNET.fillsPerSecond : DEFAULT_FILLS_PER_SECOND,
    ),
    historyFillsPerSecond: positiveNumber(
      'history-fills-per-second',
      values['history-fills-per-second'] ?? env.SIM_HISTORY_FILLS_PER_SECOND,
      mainnet ? MAINNET.fillsPerSecond : DEFAULT_HISTORY_FILLS_PER_SECOND,
    ),
    leanFillsPerSecond: positiveNumber(
      'lean-fills-per-second',
      values['lean-fills-per-second'] ?? env.SIM_LEAN_FILLS_PER_SECOND,
      mainnet ? MAINNET.fillsPerSecond : DEFAULT_LEAN_FILLS_PER_SECOND,
    ),
    ...(mainnet
      ? {
          profile,
          cascades: parseCascadeAt(cascadeAt, Date.now(), parseDuration),
          ...(statuses ? { orderStatusesPerSecond: positiveNumber('order-statuses-per-second', statuses, 0) } : {}),
        }
      : {}),
  };
  const historyMs = parseDuration(values.history ?? (env.SIM_HISTORY || (mainnet ? MAINNET.defaultHistory : '7d')));
  const detailedMs = parseDuration(
    values['detailed-history'] ?? (env.SIM_DETAILED_HISTORY || (mainnet ? MAINNET.defaultDetailedHistory : '6h')),
  );
  const port = Math.floor(positiveNumber('port', values.port ?? env.SIM_PORT, 3001));
  const host = values.host ?? '127.0.0.1';

  if (values.reset) resetTimeline(dataDir);
  // One lane: whoever ingests this data dir alone (npm run ingest) finds every block in it.
  const { sim, startMs, resuming, fillRates } = openTimeline(dataDir, wanted, historyMs, Date.now(), detailedMs, false);
  let server: NodeInfoServer | null = null;
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log(`simulator: ${signal}, stopping`);
    await server?.close();
    await sim.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  console.log(
    `simulator: ${profile} profile, seed ${wanted.seed}, ${wanted.users} users, ${wanted.fillsPerSecond} fills/s live (${wanted.historyFillsPerSecond} in history), timeline from ${new Date(startMs).toISOString()}${resuming ? ' (resuming after the blocks on disk)' : ''}`,
  );
  console.log(
    `simulator: fill rates by block ${fillRates.map((r) => `${r.fromBlock}: ${r.fillsPerSecond}/s`).join(', ')}`,
  );
  const stats = await sim.writeHistory(startMs, Date.now());
  if (stopping) return;
  console.log(
    `simulator: history ${stats.blocks} blocks, ${stats.fills} fills, ${stats.orderStatuses} order statuses, ${(stats.bytes / 1e6).toFixed(1)} MB written in ${(stats.wallMs / 1000).toFixed(1)} s → ${dataDir}`,
  );
  if (values['no-realtime']) {
    await sim.stop();
    return;
  }
  server = await startNodeInfoServer(sim, { port, host });
  console.log(`simulator: node /info listening on ${server.url}/info`);
  sim.startRealtime();
}

main().catch((err: unknown) => {
  console.error(`simulator: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
