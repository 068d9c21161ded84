// The one-writer rule of a database (docs/scale-out.md): the process that ingests into it (`npm start`, or its ingest
// role) holds a session advisory lock for its whole life, so that a second one on the same DATABASE_URL refuses to
// start instead of loading the same files and publishing the same events again.
import pg from 'pg';

/** "hlwr": the ingest writer's lock (the migration runner's is "hldg", the history sampler's "hlhs"). */
const WRITER_LOCK = 0x686c7772;

/** How often a lock lost with its connection (Postgres restarted) is taken again. */
const RETAKE_MS = 2000;

export interface WriterLock {
  release(): Promise<void>;
}

/** Who holds the lock, for the refusal: the other session's address and pid as Postgres sees them. */
async function holder(client: pg.Client): Promise<string> {
  const { rows } = await client.query<{ who: string | null }>(
    `SELECT coalesce(a.client_addr::text, 'local') || ' (backend pid ' || l.pid || ', started ' ||
       to_char(a.backend_start, 'YYYY-MM-DD"T"HH24:MI:SS') || ')' AS who
     FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
     WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 0 AND l.objid = $1 AND l.objsubid = 1 AND l.database =
       (SELECT oid FROM pg_database WHERE datname = current_database())`,
    [WRITER_LOCK],
  );
  return rows[0]?.who ?? 'another session';
}

async function tryTake(url: string): Promise<{ client: pg.Client } | { heldBy: string }> {
  const client = new pg.Client({ connectionString: url, application_name: 'hl-data-graph writer' });
  await client.connect();
  try {
    const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [WRITER_LOCK]);
    if (rows[0]?.taken) return { client };
    const heldBy = await holder(client);
    await client.end();
    return { heldBy };
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
}

const refusal = (heldBy: string) =>
  `another process already ingests into this database (it holds the writer lock: ${heldBy}); one ingest role ` +
  '(or one npm start) per database: start the others with --role api';

/**
 * Takes the writer lock of the database at `url`, or throws naming its holder. Held on a connection of its own; if
 * that connection is lost (Postgres restarted), the lock is taken again as soon as Postgres answers, and `onLost` is
 * told if another process took it meanwhile.
 */
export async function takeWriterLock(
  url: string,
  opts: { log: (line: string) => void; onLost: (reason: string) => void },
): Promise<WriterLock> {
  const lock = await takeWriterLockIfFree(url, opts);
  if ('heldBy' in lock) throw new Error(refusal(lock.heldBy));
  return lock;
}

/** takeWriterLock, or who holds it when another process does (a service ingesting into the database). */
export async function takeWriterLockIfFree(
  url: string,
  opts: { log: (line: string) => void; onLost: (reason: string) => void },
): Promise<WriterLock | { heldBy: string }> {
  const first = await tryTake(url);
  if ('heldBy' in first) return first;
  let client: pg.Client | undefined = first.client;
  let released = false;
  let retaking: NodeJS.Timeout | undefined;
  const retake = () => {
    retaking = setTimeout(async () => {
      if (released) return;
      try {
        const again = await tryTake(url);
        if ('heldBy' in again) return opts.onLost(refusal(again.heldBy));
        if (released) return void (await again.client.end().catch(() => {}));
        watch(again.client);
        opts.log('postgres: writer lock taken again');
      } catch {
        retake();
      }
    }, RETAKE_MS);
    retaking.unref();
  };
  const watch = (c: pg.Client) => {
    client = c;
    // A lost connection (server restarted or killed) would otherwise crash the process with an unhandled 'error'.
    c.on('error', () => {});
    c.once('end', () => {
      client = undefined;
      if (released) return;
      opts.log('postgres: writer lock lost with its connection; taking it again');
      retake();
    });
  };
  watch(first.client);
  return {
    release: async () => {
      released = true;
      clearTimeout(retaking);
      await client?.end().catch(() => {});
    },
  };
}
