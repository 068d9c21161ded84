// `npm run ingest -- --data-dir DIR [--follow] [--streams a,b] [--batch-rows N] [--lane NAME]`: loads hl-node output
// files into Postgres (DATABASE_URL, or the embedded cluster), resumably. `--lane` loads DIR as a backfill lane:
// checkpoints of its own (`NAME/<stream>`), its events history (never published live, told as a gap).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../db/pool.ts';
import { openConfiguredBus } from '../events/open.ts';
import { loadConfig } from '../platform/config.ts';
import { STREAMS, type StreamName } from '../wire/node-lines.ts';
import { Ingest } from './pipeline.ts';
import { reportProgress } from './progress.ts';

function usage(message: string): never {
  console.error(
    `${message}\nusage: npm run ingest -- --data-dir DIR [--follow] [--streams ${STREAMS[0]},...] [--batch-rows N] [--lane NAME]`,
  );
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    follow: { type: 'boolean', default: false },
    streams: { type: 'string' },
    'batch-rows': { type: 'string' },
    lane: { type: 'string' },
  },
}).valueOf() as {
  values: { 'data-dir'?: string; follow: boolean; streams?: string; 'batch-rows'?: string; lane?: string };
};
if (values.lane !== undefined && !/^[a-z][a-z0-9_-]{0,31}$/.test(values.lane)) {
  usage('--lane must be a name of lowercase letters, digits, _ and - (at most 32)');
}

const config = loadConfig();
const dataDir = values['data-dir'] ?? config.hlDataDir ?? config.simDataDir;
const streams = values.streams?.split(',').map((s) => s.trim()) ?? [...STREAMS];
for (const s of streams) if (!STREAMS.includes(s as StreamName)) usage(`unknown stream ${s}`);
const batchRows = values['batch-rows'] === undefined ? undefined : Number(values['batch-rows']);
if (batchRows !== undefined && !(Number.isInteger(batchRows) && batchRows > 0))
  usage('--batch-rows must be a positive integer');

// Ingest needs the embedded cluster to itself: a running `npm start` ingests into it already, and checkpoints are
// per stream, so a second loader would load the same lines twice.
const db = await openDatabase(config, (line) => console.error(line), {
  command: 'npm run ingest',
  mode: 'own',
  whyNotShared: 'a second ingest into the same database would load the same lines twice',
}).catch((err: Error) => {
  console.error(`ingest: ${err.message}`);
  process.exit(1);
});
// With NATS_URL, the events go to the JetStream stream the api instances follow (a restart publishes nothing twice).
const bus = await openConfiguredBus(config, (line) => console.error(line)).catch(async (err: Error) => {
  console.error(`ingest: ${err.message}`);
  await db.close();
  process.exit(1);
});
const ingest = new Ingest({
  dataDir: path.resolve(dataDir),
  pool: db.pool,
  bus,
  follow: values.follow,
  streams: streams as StreamName[],
  ...(batchRows ? { batchRows } : {}),
  ...(values.lane ? { lane: values.lane } : {}),
});
console.error(`ingesting ${path.resolve(dataDir)}${values.follow ? ' (following)' : ''}`);
const progress = reportProgress(() => ingest.stats);

let exitCode = 0;
const shutdown = async () => {
  await ingest.stop();
};
// `on`, not `once`: a terminal's Ctrl-C under npm arrives twice (npm forwards it), and a second one unheard would
// kill the process before it stops the embedded cluster.
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
try {
  await ingest.run();
} catch (err) {
  console.error(`ingest failed: ${err instanceof Error ? err.message : String(err)}`);
  exitCode = 1;
} finally {
  progress.stop();
  await bus.close();
  await db.close();
}
process.exit(exitCode);
