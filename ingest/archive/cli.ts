// `npm run import -- --archive DIR [--book-every SECONDS] [--batch-rows N]`: loads a local copy of the public archive
// buckets (import.ts) into Postgres: DATABASE_URL, or the embedded cluster, a running `npm start`'s as a guest (as `npm
// run keys` does) so that its answers include the imported days. Progress goes to stderr; exit code 1 on failure, 2 on
// bad usage.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, writerPool } from '../../db/pool.ts';
import { takeWriterLockIfFree } from '../../db/writer-lock.ts';
import type { WriterModule } from '../../kit/domain.ts';
import { loadConfig } from '../../platform/config.ts';
import { importedBackfills } from '../backfills.ts';
import { importArchive } from './import.ts';

const USAGE = 'usage: npm run import -- --archive DIR [--book-every SECONDS] [--batch-rows N]';

function usage(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

let values: { archive?: string; 'batch-rows'?: string; 'book-every'?: string };
try {
  ({ values } = parseArgs({
    options: { archive: { type: 'string' }, 'batch-rows': { type: 'string' }, 'book-every': { type: 'string' } },
  }));
} catch (err) {
  usage((err as Error).message);
}
if (!values.archive) usage('--archive DIR is required');
const batchRows = values['batch-rows'] === undefined ? undefined : Number(values['batch-rows']);
if (batchRows !== undefined && !(Number.isInteger(batchRows) && batchRows > 0))
  usage('--batch-rows must be a positive integer');
const bookEvery = values['book-every'] === undefined ? undefined : Number(values['book-every']);
if (bookEvery !== undefined && !(Number.isInteger(bookEvery) && bookEvery > 0))
  usage('--book-every must be a positive integer (seconds)');

/**
 * The domains' writers include what the import added (the analytics derivation, leaderboards): the service ingesting
 * into this database does it as it runs; with none, they catch up here, under the writer lock, before the command ends.
 */
async function catchUpWriters(url: string): Promise<void> {
  const log = (line: string) => console.error(line);
  const lock = await takeWriterLockIfFree(url, { log, onLost: () => {} });
  if ('heldBy' in lock) {
    log(
      'import: the service writing to this database derives the imported days as it runs (dataCoverage: analyticsDerivation)',
    );
    return;
  }
  try {
    const { DOMAIN_WRITERS } = await import('../../domains.ts');
    for (const { module } of DOMAIN_WRITERS) {
      const writer = (await import(module)) as WriterModule;
      await writer.catchUp?.(
        {
          pool,
          log,
          backfill: { complete: () => true, loadedUntil: () => null },
          imports: () => importedBackfills(pool),
          publish: () => {},
        },
        process.stderr,
      );
    }
  } finally {
    await lock.release();
  }
}

const db = await openDatabase(loadConfig(), (line) => console.error(line), {
  command: 'npm run import',
  mode: 'guest',
}).catch((err: Error) => {
  console.error(`import: ${err.message}`);
  process.exit(1);
});
// Statements of a batch may take longer than an answer's limit: ingest's writer pool.
const pool = writerPool(db.url);
let exitCode = 0;
const abort = new AbortController();
const stop = () => {
  // A second signal: leave at once (every file and batch commits whole, or not at all).
  if (abort.signal.aborted) process.exit(130);
  console.error('import: stopping after the batch in flight; the same command resumes');
  abort.abort();
};
// `on`, not `once`: npm forwards a terminal's Ctrl-C, so it may come twice.
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
try {
  const summary = await importArchive({
    dir: path.resolve(values.archive),
    pool,
    out: process.stderr,
    signal: abort.signal,
    ...(batchRows ? { batchRows } : {}),
    ...(bookEvery ? { bookEveryMs: bookEvery * 1000 } : {}),
  });
  if (!summary.files) console.error(`import: nothing to load in ${path.resolve(values.archive)}`);
  if (abort.signal.aborted) exitCode = 130;
  else if (summary.loadedFrom !== null) await catchUpWriters(db.url);
} catch (err) {
  console.error(`import failed: ${err instanceof Error ? err.message : String(err)}`);
  exitCode = 1;
} finally {
  await pool.end();
  await db.close();
}
process.exit(exitCode);
