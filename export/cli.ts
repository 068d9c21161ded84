// `npm run export -- --dataset fills|trades|candles|funding|ledger|books --day YYYY-MM-DD --out DIR`: writes
// DIR/<dataset>/<day>.parquet from the store (DATABASE_URL, or the embedded cluster: a running `npm start`'s, as a
// guest) and merges its entry into DIR/manifest.json. What each dataset holds and its columns: docs/export.md.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase } from '../db/pool.ts';
import { loadConfig } from '../platform/config.ts';
import { FieldError } from '../platform/fields.ts';
import { DATASET_NAMES, datasetOf, dayStart } from './datasets.ts';
import { exportDay } from './index.ts';

const USAGE = `usage: npm run export -- --dataset ${DATASET_NAMES.join('|')} --day YYYY-MM-DD --out DIR`;

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

let values: { dataset?: string; day?: string; out?: string };
try {
  ({ values } = parseArgs({
    options: { dataset: { type: 'string' }, day: { type: 'string' }, out: { type: 'string' } },
  }));
} catch (err) {
  usage((err as Error).message);
}
if (!values.dataset || !values.day || !values.out) usage('--dataset, --day and --out are required');
try {
  datasetOf(values.dataset);
  dayStart(values.day);
} catch (err) {
  if (err instanceof FieldError) usage(err.message);
  throw err;
}

const db = await openDatabase(loadConfig(), (line) => console.error(line));
try {
  const started = performance.now();
  const entry = await exportDay({
    databaseUrl: db.url,
    dataset: values.dataset,
    day: values.day,
    dir: path.resolve(values.out),
  });
  const seconds = (performance.now() - started) / 1000;
  console.error(
    `${entry.path}: ${entry.rows.toLocaleString('en-US')} rows, ${entry.bytes.toLocaleString('en-US')} bytes in ${seconds.toFixed(1)} s`,
  );
  console.log(JSON.stringify(entry));
} finally {
  await db.close();
}
