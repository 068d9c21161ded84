// The analytics derivation job: walks stored fills, funding payments and perp-cash ledger updates in time order from
// its checkpoint and derives round trips, hourly account snapshots, daily and hourly per-user sums and builder
// activity per wallet and hour. Each batch commits its rows together with the advanced checkpoint in one
// transaction (under an advisory lock: one writer), so a crash at any point and a restart give the same tables as
// one clean run, and a rebuild (reset, then run) gives them too.
//
// What it derives, in the order events happened (fills, then funding, then ledger updates of the same millisecond):
// - a round trip per address and perp coin opens when a fill moves its position away from flat, and closes when a
//   fill brings it back to flat; a fill that crosses zero closes one and opens the next (its fee is split by size;
//   its closedPnl belongs to the closing trip). Entry and exit prices are the VWAPs of the increasing and reducing
//   fills; `pnl` is Σ closedPnl; funding is credited to the trip open when it was paid; the leverage is the opening
//   notional over the account value of the account's latest snapshot before the open (null without one).
// - perp cash = ledger (accounts' ledgerCash) + Σ(closedPnl − fee) + Σ funding, as the accounts domain's account
//   state computes it; a snapshot at each hour's close for every account with an event in that hour, positions
//   valued at the coin's last fill price.
// - a trip is a win when its net PnL (pnl − fees + funding) is positive, a loss when negative, counted on its close.
// Coins: the main perp dex only (no '/', '@', '#' or ':'), as the account state: spec §8 "account_value covers the
// perp account only".
import type pg from 'pg';
import { ACCOUNT_SNAPSHOTS, makePartitions } from '../../../db/partitions.ts';
import { ClientQueue, inTransaction, WRITE_STATEMENT_TIMEOUT_MS } from '../../../db/pool.ts';
import type { ImportedBackfill } from '../../../kit/domain.ts';
import { fillTimeAfter, firstPerpEventTime } from '../../accounts/port.ts';
import { HOUR_MS } from '../service/window.ts';
import { DerivationBatch, isFill, query } from './batch.ts';

/** The checkpoint row's name. */
const JOB = 'analytics';
/** The advisory lock every batch and the reset hold: one writer of the analytics tables at a time. */
const DERIVE_LOCK = 0x616e6c79; // "anly"
/** A batch spans at most this much time, so that quiet stretches (funding only) still come in bounded pieces. */
const MAX_SPAN_MS = 6 * HOUR_MS;
/** Fills per batch following live ingest: a batch commits within a second or two, so the lag stays small. */
export const LIVE_MAX_FILLS = 20_000;
/**
 * Fills per batch deriving stored history (a rebuild, an import's catch-up): about MAX_SPAN_MS of mainnet. Each batch
 * reads the state and open trips of the accounts it touches and writes them back, and every open position is paid
 * funding each hour, so on mainnet's shape (350 k open positions) a 20 000-fill batch rewrote most open trips and
 * account states a dozen times an hour; a batch of 6 hours writes each once in 6 (issue 39, bench/analytics.ts).
 */
export const HISTORY_MAX_FILLS = 2_000_000;
/**
 * The first part of a batch's first hour, read and walked alone: the walk starts after reading minutes of events, not
 * an hour's (seconds of a mainnet hour, in which nothing else overlapped).
 */
const FIRST_PART_MS = 5 * 60_000;
/** A batch's statements may take this long per fill it holds (a history batch's upserts write ~10^5-10^6 rows). */
const STATEMENT_MS_PER_FILL = 1;

export interface BatchResult {
  /** The checkpoint after the batch (every event before it derived); null when there is nothing to derive yet. */
  cursor: number | null;
  fills: number;
  events: number;
  /** Whether the batch reached `upTo` (false: more is waiting). */
  reached: boolean;
}

/** The checkpoint: every event before it is derived (null: the job has not started). */
export async function derivedUntil(db: pg.Pool | pg.PoolClient): Promise<number | null> {
  const { rows } = await db.query<{ cursor_time: number }>(
    'SELECT cursor_time FROM analytics.derive_checkpoint WHERE job = $1',
    [JOB],
  );
  return rows[0]?.cursor_time ?? null;
}

export interface ResetOptions {
  /** Keep the leaderboards' rows: they stand until the derivation has caught up again and ranks anew. */
  keepRankings?: boolean;
  /** Imports the derivation includes from here on (their completions, noted in the same transaction). */
  imports?: readonly ImportedBackfill[];
}

/** Empties every derived table and the checkpoint, in one transaction (the first half of a rebuild). */
export async function resetDerived(pool: pg.Pool, opts: ResetOptions = {}): Promise<void> {
  await inTransaction(pool, async (c) => {
    await c.query(`SET LOCAL statement_timeout = ${WRITE_STATEMENT_TIMEOUT_MS}`);
    await query(c, 'SELECT pg_advisory_xact_lock($1)', [DERIVE_LOCK]);
    await query(
      c,
      `TRUNCATE analytics.round_trips, analytics.account_snapshots, analytics.user_daily, analytics.user_hourly,
         analytics.builder_hourly, analytics.account_state, analytics.marks, analytics.user_totals,
         ${opts.keepRankings ? '' : 'analytics.leaderboard, analytics.live_boards, analytics.live_leaderboard,'}
         analytics.derive_checkpoint`,
    );
    // Its days, emptied, are thinned again once derived again (db/partitions.ts).
    await query(c, 'DELETE FROM platform.thinned_partitions WHERE parent = $1', [ACCOUNT_SNAPSHOTS.table]);
    await noteImports(c, opts.imports ?? []);
  });
}

/** Of `imports`, those the derivation has not included yet (completed since it last accounted for their lane). */
export async function importsToInclude(
  pool: pg.Pool,
  imports: readonly ImportedBackfill[],
): Promise<ImportedBackfill[]> {
  if (!imports.length) return [];
  const { rows } = await pool.query<{ lane: string; completed_at: number }>(
    'SELECT lane, completed_at FROM analytics.imports_derived WHERE lane = ANY($1)',
    [imports.map((i) => i.lane)],
  );
  const seen = new Map(rows.map((r) => [r.lane, Number(r.completed_at)]));
  return imports.filter((i) => i.completedAt > (seen.get(i.lane) ?? Number.NEGATIVE_INFINITY));
}

/** Notes `imports` as included (their events lie at or after the checkpoint, or the derivation starts again). */
export async function noteImports(db: pg.Pool | pg.PoolClient, imports: readonly ImportedBackfill[]): Promise<void> {
  for (const i of imports) {
    await db.query(
      `INSERT INTO analytics.imports_derived (lane, completed_at) VALUES ($1, $2)
       ON CONFLICT (lane) DO UPDATE SET completed_at = greatest(analytics.imports_derived.completed_at, EXCLUDED.completed_at)`,
      [i.lane, i.completedAt],
    );
  }
}

/**
 * Derives one batch: the events from the checkpoint up to about `maxFills` fills, never at or past `upTo`, committed
 * with the new checkpoint.
 */
export async function deriveBatch(pool: pg.Pool, upTo: number, maxFills = LIVE_MAX_FILLS): Promise<BatchResult> {
  const timeoutMs = Math.max(WRITE_STATEMENT_TIMEOUT_MS, maxFills * STATEMENT_MS_PER_FILL);
  await makeSnapshotDays(pool, upTo);
  return inTransaction(pool, async (c) => {
    await c.query(`SET LOCAL statement_timeout = ${timeoutMs}`);
    // Not waiting for the commit's WAL flush: a crash can lose only whole batches, their checkpoint with them (one
    // transaction), and the job derives them again from the stored events.
    await c.query('SET LOCAL synchronous_commit = off');
    // The sums statement sorts and groups the batch's fills (it spilled to disk at the default 4 MB).
    await c.query(`SET LOCAL work_mem = '128MB'`);
    await query(c, 'SELECT pg_advisory_xact_lock($1)', [DERIVE_LOCK]);
    const checkpoint = await derivedUntil(c);
    const cursor = checkpoint ?? (await firstPerpEventTime(c, WRITE_STATEMENT_TIMEOUT_MS));
    if (cursor === null || cursor >= upTo) return { cursor, fills: 0, events: 0, reached: true };
    // The batch ends before the time of the fill `maxFills` on (a whole millisecond at least), within the span.
    const nth = await fillTimeAfter(c, cursor, upTo, maxFills, WRITE_STATEMENT_TIMEOUT_MS);
    let end = Math.min(upTo, cursor + MAX_SPAN_MS);
    if (nth !== null) end = Math.min(end, Math.max(nth, cursor + 1));
    // A batch cut short ends on an hour when it spans one: the hourly rows (sums, builder activity) of the hours it
    // holds are then written once, by one batch, instead of inserted by one and updated by the next.
    const hour = Math.floor(end / HOUR_MS) * HOUR_MS;
    if (end < upTo && hour > cursor) end = hour;
    // Its statements go through one queue: the walk keeps reads and writes of the one transaction in flight.
    const statements = new ClientQueue(c);
    const batch = new DerivationBatch(statements, [cursor, end], checkpoint !== null, timeoutMs);
    try {
      return await walkBatch(batch, statements, cursor, end, upTo);
    } catch (err) {
      // The rollback comes after whatever is still queued (and still being built).
      await batch.handedOver();
      await statements.idle();
      throw err;
    }
  });
}

/** Walks [cursor, end) hour by hour, writes what it derived and the new checkpoint (deriveBatch's transaction). */
async function walkBatch(
  batch: DerivationBatch,
  statements: ClientQueue,
  cursor: number,
  end: number,
  upTo: number,
): Promise<BatchResult> {
  // An hour's events at a time (a history batch spans hours: its events held at once cost more in garbage
  // collection than in arithmetic), each hour's hourly sums written as it ends, with its closed trips and
  // snapshots once enough have gathered; the state they change (open trips, accounts, daily sums and totals) is
  // written once, at the batch's end. Postgres works while Node walks: it reads the next hour's events and writes
  // the hour before while this one is applied (the one connection's queue runs them in order). The next hour's
  // accounts are read before this hour's writes are queued, so that its walk does not wait for them. The first hour
  // comes in two parts (FIRST_PART_MS, then the rest), so that the walk starts after a short read.
  const parts: { range: [number, number]; endsHour: boolean }[] = [];
  for (let from = cursor; from < end; ) {
    const until = Math.min(end, Math.floor(from / HOUR_MS) * HOUR_MS + HOUR_MS);
    if (!parts.length && until - from > 2 * FIRST_PART_MS)
      parts.push(
        { range: [from, from + FIRST_PART_MS], endsHour: false },
        { range: [from + FIRST_PART_MS, until], endsHour: true },
      );
    else parts.push({ range: [from, until], endsHour: true });
    from = until;
  }
  // A read failing after a write did (the transaction aborted): the write's error is the one to tell.
  const afterWrites = <T>(read: Promise<T>) =>
    read.catch(async (err) => {
      await batch.written();
      throw err;
    });
  let events = 0;
  let fills = 0;
  let loaded = await batch.read(...(parts[0] as (typeof parts)[number]).range);
  await batch.loadAccountsOf(loaded);
  let hourFrom = cursor;
  for (let i = 0; i < parts.length; i++) {
    const { range, endsHour } = parts[i] as (typeof parts)[number];
    const [from, until] = range;
    const next =
      i + 1 < parts.length ? afterWrites(batch.read(...(parts[i + 1] as (typeof parts)[number]).range)) : undefined;
    next?.catch(() => {}); // awaited below, unless the walk throws first
    // Postgres groups a batch of hours' fills by day (its end's daily sums) while the first hour is walked.
    if (parts.length > 2) batch.groupDays();
    events += loaded.length;
    for (const e of loaded) if (isFill(e)) fills++;
    await batch.run(loaded, from, until);
    if (next) {
      loaded = await next;
      await afterWrites(batch.loadAccountsOf(loaded));
    }
    if (endsHour) {
      batch.endHour([hourFrom, until]);
      hourFrom = until;
    }
  }
  await batch.write();
  await query(
    statements,
    `INSERT INTO analytics.derive_checkpoint (job, cursor_time) VALUES ($1, $2)
     ON CONFLICT (job) DO UPDATE SET cursor_time = EXCLUDED.cursor_time, updated_at = now()`,
    [JOB, end],
  );
  return { cursor: end, fills, events, reached: end >= upTo };
}

/**
 * The days of account snapshots (partitioned by day: db/partitions.ts) the next batch may write, made before its
 * transaction (making one locks the table until it commits): from the checkpoint (or the first event) to the most a
 * batch spans, and the close of its last hour. A day not made goes to the DEFAULT partition, and is never thinned.
 */
async function makeSnapshotDays(pool: pg.Pool, upTo: number): Promise<void> {
  const from = (await derivedUntil(pool)) ?? (await firstPerpEventTime(pool, WRITE_STATEMENT_TIMEOUT_MS));
  if (from === null || from >= upTo) return;
  const max = Math.min(upTo, from + MAX_SPAN_MS) + HOUR_MS;
  await makePartitions(pool, new Map([[ACCOUNT_SNAPSHOTS.table, { min: from, max }]]));
}

/** Derives every event before `upTo`, batch after batch (each told to `onBatch`); returns the checkpoint reached. */
export async function deriveUntil(
  pool: pg.Pool,
  upTo: number,
  maxFills?: number,
  onBatch?: (batch: BatchResult) => void,
): Promise<number | null> {
  for (;;) {
    const r = await deriveBatch(pool, upTo, maxFills);
    onBatch?.(r);
    if (r.reached) return r.cursor;
  }
}
