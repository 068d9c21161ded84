// The checkpointed loader: one reader per stream walks its hourly files in order from the stream's checkpoint,
// parses each complete line, and commits rows + checkpoint in one transaction per batch, so that a crash at any
// point followed by a restart loads every row exactly once. Committed rows are then published on the event bus.
// Storage going away (Postgres stalled, killed, restarting) is not a crash either: the reader drops what it had not
// committed, waits with backoff, and resumes from the checkpoint Postgres holds, which is the same thing.
import { constants } from 'node:buffer';
import { setTimeout as sleep } from 'node:timers/promises';
import { makePartitions } from '../db/partitions.ts';
import { databaseStatus, inTransaction } from '../db/pool.ts';
import { isStorageUnavailable, StorageUnavailableError } from '../db/unavailable.ts';
import type { BusGap, Topic, Topics } from '../events/bus.ts';
import { FieldError } from '../platform/fields.ts';
import { STREAMS, type StreamName } from '../wire/node-lines.ts';
import { Batch, type BatchMark, INGEST_STATEMENT_TIMEOUT_MS } from './batch.ts';
import { LOADERS } from './formats/index.ts';
import type { StreamLoader } from './formats/loader.ts';
import {
  alreadyLoaded,
  before,
  FileSource,
  fileHour,
  fileOrder,
  type Layout,
  lastKey,
  laterKey,
  listLayoutFiles,
  type Piece,
  parsePiece,
  type StreamFile,
  sameBlock,
  tailOf,
} from './layouts.ts';
import { type BlockRead, committedUntil, type IngestOptions, type StreamStats } from './options.ts';

/** Where a line ends: the file's checkpoint name, the byte offset just past it, its line number. */
interface Position {
  file: string;
  offset: number;
  lineNo: number;
}

interface Checkpoint extends Position {
  lastBlock: number | null;
  /** The last whole block before the position: its time, and when its last line was read (kept in memory only). */
  block?: BlockRead;
}

interface LineError {
  file: string;
  lineNo: number;
  error: string;
  sample: string;
}

const CHUNK = 1 << 20;
/**
 * The longest line read: the longest string V8 makes (~512 MiB). A by-block line is a whole block, and the top of an
 * hour's misc block pays funding to every open position in one line: ~120 MB for the mainnet profile's ~400 000.
 */
export const MAX_LINE_BYTES = constants.MAX_STRING_LENGTH;
/** Waits before resuming after a storage failure: doubling from the first to the most. */
const RETRY_FIRST_MS = 250;
const RETRY_MAX_MS = 5000;
/** First key of the per-stream advisory lock a commit holds (the second: the stream's name hashed). */
const INGEST_LOCK_CLASS = 0x686c696e; // "hlin"
/** Postgres's deadlock_detected. */
const DEADLOCK = '40P01';

function reasonOf(err: unknown): string {
  if (err instanceof StorageUnavailableError) return err.reason;
  return err instanceof Error ? err.message : String(err);
}

class StreamReader {
  readonly stats: StreamStats;
  private checkpoint: Checkpoint | null = null;
  /** The checkpoint Postgres holds, as this reader last read or committed it (null: none yet). */
  private stored: Checkpoint | null = null;
  /** The last block whose events went out on the bus (null: none yet). */
  private published: number | null = null;
  /** Where in the current batch the events of blocks not yet published start. */
  private fresh: BatchMark | undefined;
  /** Block time of the first of those blocks. */
  private freshFrom: number | undefined;
  /**
   * A lane resumed from its checkpoint: the start of its first file. What its runs before loaded was told as a gap
   * too, but the refill a subscriber starts on it (a backfill's candles) may have been cut short with that process;
   * this run's gap starts there, so nothing the lane loaded is left without it.
   */
  private resumedFrom: number | undefined;
  /** Events of blocks not given to the bus (older than it keeps), not yet told to its subscribers. */
  private gap: BusGap | undefined;
  /** Storage is unavailable: batches are published without being committed. */
  private degraded = false;
  private batch = new Batch();
  private errors: LineError[] = [];
  private pending = { lines: 0, malformed: 0 };
  private inflight: Promise<void> | undefined;
  /**
   * The block whose lines are being read (a streaming or legacy file spreads one block over many lines): loaded once
   * a line of another block shows it complete. The checkpoint stays before its first line until then.
   */
  private open: { piece: Piece; layout: Layout; first: string; end: Position; errors: LineError[] } | undefined;
  /** Where reading goes on: past the last line read (the checkpoint may be behind it, before the open block). */
  private readAt: Position | null = null;
  /** The stream's checkpoint row (and commit lock): its name, or `<lane>/<name>` in a lane. */
  private readonly key: string;

  constructor(
    private readonly loader: StreamLoader,
    private readonly opts: Required<Omit<IngestOptions, 'streams' | 'bus' | 'lane' | 'historyBefore' | 'hold'>> &
      Pick<IngestOptions, 'bus' | 'lane' | 'historyBefore' | 'hold'>,
    private readonly stopped: () => boolean,
    /** Whether storage answers now (one probe at a time for all streams). */
    private readonly storageAnswers: () => Promise<boolean>,
  ) {
    this.key = opts.lane ? `${opts.lane}/${loader.stream}` : loader.stream;
    this.stats = {
      stream: loader.stream,
      file: null,
      rows: 0,
      lines: 0,
      malformed: 0,
      rewound: 0,
      filesDone: 0,
      lastBlock: null,
      lastBlockTime: null,
      committed: null,
      quietAt: null,
      caughtUp: false,
      caughtUpAt: null,
      storageRetries: 0,
    };
  }

  /**
   * Follows the stream. On a storage failure it keeps reading from memory (`followFromMemory`) until storage answers,
   * then resumes committing from the checkpoint Postgres holds. Any other failure (a file that cannot be read, a
   * statement Postgres refuses: a bug) is fatal and rejects.
   */
  async run(): Promise<void> {
    let backoffMs = RETRY_FIRST_MS;
    let fromMemory = false;
    for (;;) {
      const committed = this.stats.rows + this.stats.lines;
      try {
        if (!fromMemory) return await this.follow(false);
        await this.follow(true, backoffMs);
        fromMemory = false;
        if (this.stopped()) return;
        this.opts.log(`${this.loader.stream}: storage answers again; resuming from the stored checkpoint`);
      } catch (err) {
        if (!isStorageUnavailable(err)) throw err;
        // Whatever was parsed but not committed is dropped, read again from memory now and committed later from
        // the stored checkpoint. A batch whose COMMIT was sent but not acknowledged may have committed after all:
        // the stored checkpoint then says so (and the commit guard in `commit` sees it), so it is not loaded twice.
        this.batch = new Batch();
        this.errors = [];
        this.pending = { lines: 0, malformed: 0 };
        this.fresh = undefined;
        this.freshFrom = undefined;
        this.inflight = undefined;
        if (this.stopped()) return;
        if (this.stats.rows + this.stats.lines !== committed) backoffMs = RETRY_FIRST_MS;
        else if (fromMemory) backoffMs = Math.min(RETRY_MAX_MS, backoffMs * 2);
        this.stats.storageRetries++;
        if (!fromMemory) {
          this.opts.log(
            `${this.loader.stream}: storage unavailable (${reasonOf(err)}); publishing from the files alone until it answers`,
          );
        }
        fromMemory = true;
      }
    }
  }

  /**
   * Reads the stream: from the stored checkpoint, committing batches and then publishing them; or, while storage is
   * unavailable (`fromMemory`), from the last checkpoint this reader saw committed, publishing without committing,
   * asking every `probeMs` whether storage answers again (then it returns). Either way, events of blocks already
   * published are not published again.
   */
  private async follow(fromMemory: boolean, probeMs = RETRY_FIRST_MS): Promise<void> {
    this.degraded = fromMemory;
    this.open = undefined;
    if (fromMemory) this.checkpoint = this.stored && { ...this.stored };
    else this.checkpoint = this.loader.liveOnly ? await this.tailPosition() : await this.loadCheckpoint();
    if (!fromMemory && this.opts.lane && this.stored) {
      const first = (await listLayoutFiles(this.opts.dataDir, this.loader.stream))[0];
      this.resumedFrom = first && fileHour(first);
    }
    this.readAt = this.checkpoint && { ...this.checkpoint };
    let probeAt = Date.now() + probeMs;
    const buf = Buffer.allocUnsafe(CHUNK);
    while (!this.stopped()) {
      if (this.opts.hold?.(this.loader.stream)) {
        await sleep(this.opts.pollMs);
        continue;
      }
      if (fromMemory && Date.now() >= probeAt) {
        if (await this.storageAnswers()) break;
        probeMs = Math.min(RETRY_MAX_MS, probeMs * 2);
        probeAt = Date.now() + probeMs;
      }
      const files = await listLayoutFiles(this.opts.dataDir, this.loader.stream);
      let index = this.readAt ? files.findIndex((f) => f.name === this.readAt?.file) : 0;
      if (index < 0) {
        // The file read last is gone (pruned): continue with the first file after it.
        const order = fileOrder(this.loader.stream, this.readAt?.file ?? '');
        index = files.findIndex((f) => f.order > order);
        if (index < 0) index = files.length;
        this.readAt = null;
      }
      let progressed = false;
      for (; index < files.length && !this.stopped(); index++) {
        const file = files[index] as StreamFile;
        const isLast = index === files.length - 1;
        const start = this.readAt?.file === file.name ? this.readAt : { offset: 0, lineNo: 0 };
        this.stats.file = file.name;
        progressed = (await this.readFile(file, start.offset, start.lineNo, buf)) || progressed;
        if (!isLast) this.stats.filesDone++;
        // Only the newest file may still grow; stay on it.
        if (isLast) break;
      }
      // Not following, the files are read to their end: the block read last is complete.
      if (!this.opts.follow && !progressed && this.readAt) this.completeOpen(this.readAt);
      await this.drain();
      if (!progressed) {
        this.stats.caughtUp = true;
        this.stats.caughtUpAt = Date.now();
        // Everything read is committed (drained), unless a block is still open or storage is away.
        this.stats.quietAt = this.open || fromMemory ? null : this.stats.caughtUpAt;
        // A lane has no later live event to tell its gap with: it tells it once it has read all there is.
        if (this.opts.lane) await this.tellGap();
        // Not following: done once all that was read is committed (while storage is down, nothing is).
        if (!this.opts.follow && !fromMemory) return await this.drain(true);
        await sleep(this.opts.pollMs);
      }
    }
    await this.drain(true);
  }

  /** Reads complete lines of `file` from `offset`; returns whether any line was consumed. */
  private async readFile(file: StreamFile, offset: number, lineNo: number, buf: Buffer): Promise<boolean> {
    const source = new FileSource(file.absolute);
    let consumed = false;
    // The start of a line still without its newline, in pieces joined once it comes (not once per chunk read: a
    // line of N chunks would be copied N times over).
    let carry: Buffer[] = [];
    let carried = 0;
    let position = offset;
    for (;;) {
      const n = await source.read(position + carried, buf);
      if (n === 0) break;
      const read = buf.subarray(0, n);
      if (carried > 0 && read.indexOf(10) < 0) {
        carry.push(Buffer.from(read));
        carried += n;
        this.lineFits(file, carried);
        continue;
      }
      const chunk: Buffer = carried ? Buffer.concat([...carry, read], carried + n) : read;
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
        lineNo++;
        const text = chunk.toString('utf8', start, nl);
        start = nl + 1;
        this.loadLine(file, text, { file: file.name, offset: position + start, lineNo });
        consumed = true;
        if (this.batch.rows >= this.opts.batchRows) await this.flush();
      }
      position += start;
      // A trailing partial line waits for its newline (the node is still writing it).
      carried = chunk.length - start;
      carry = carried > 0 ? [Buffer.from(chunk.subarray(start))] : [];
      this.lineFits(file, carried);
    }
    if (!consumed && this.readAt?.file !== file.name) this.pass({ file: file.name, offset: position, lineNo });
    return consumed;
  }

  private lineFits(file: StreamFile, bytes: number): void {
    if (bytes > MAX_LINE_BYTES) {
      throw new Error(`${this.loader.stream}/${file.name}: a line longer than ${MAX_LINE_BYTES} bytes`);
    }
  }

  /**
   * Takes one line ending at `end`: a whole block (by-block), or a piece of the block being read (streaming, legacy
   * lines), which is loaded once a line of another block follows it. The checkpoint moves only past whole blocks.
   */
  private loadLine(file: StreamFile, text: string, end: Position): void {
    const previousEnd = this.readAt;
    this.readAt = end;
    if (text.trim() === '') {
      this.pass(end);
      return;
    }
    this.pending.lines++;
    let piece: Piece;
    try {
      piece = parsePiece(file.layout, text);
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      this.malformed(end, err, text);
      this.pass(end);
      return;
    }
    const open = this.open;
    if (open) {
      if (sameBlock(open.piece, piece)) {
        // The same block's first event again, or in another layout: the node restarted and re-emits the block whole.
        const restarts = piece.events.length > 0 && JSON.stringify(piece.events[0]) === open.first;
        if (file.layout === open.layout && !restarts) {
          for (const e of piece.events) open.piece.events.push(e);
          open.end = end;
          return;
        }
        this.dropOpen();
      } else if (before(open.piece, piece)) {
        // The node went back to an older block (a restart): the open block will come again, whole.
        this.dropOpen();
      } else this.completeOpen(previousEnd ?? open.end);
    }
    if (alreadyLoaded(piece, this.checkpoint?.lastBlock ?? null)) {
      // The node re-emitted an older block after a restart, or another layout gave it: it is already loaded.
      this.stats.rewound++;
      this.pass(end);
      return;
    }
    if (file.layout === 'by_block') this.loadBlock(piece, end, text);
    else this.open = { piece, layout: file.layout, first: JSON.stringify(piece.events[0] ?? null), end, errors: [] };
  }

  /** Moves the checkpoint past a line that holds no block, unless a block being read started before it. */
  private pass(end: Position): void {
    this.readAt = end;
    if (!this.open) this.checkpoint = this.sameBlockAt(end);
  }

  /** The checkpoint moved to `end` past lines that complete no block: its last block stays what it was. */
  private sameBlockAt(end: Position): Checkpoint {
    return { ...end, lastBlock: this.checkpoint?.lastBlock ?? null, block: this.checkpoint?.block };
  }

  /**
   * Loads the block being read (every line of it has been read); the checkpoint moves to `at`, past its last line and
   * any line read since (the malformed lines among them are recorded with it).
   */
  private completeOpen(at: Position): void {
    const open = this.open;
    if (!open) return;
    this.dropOpen();
    this.loadBlock(open.piece, at, JSON.stringify(open.piece.events).slice(0, 500));
  }

  /** Forgets the block being read, keeping the malformed lines read while it was open. */
  private dropOpen(): void {
    for (const e of this.open?.errors ?? []) {
      this.errors.push(e);
      this.pending.malformed++;
    }
    this.open = undefined;
  }

  /** Loads one whole block, whose last line ends at `end`; the checkpoint moves past it. */
  private loadBlock(piece: Piece, end: Position, sample: string): void {
    const mark = this.batch.mark();
    try {
      if (!alreadyLoaded(piece, this.published)) {
        this.fresh ??= mark;
        this.freshFrom ??= piece.blockTime;
      }
      this.loader.loadBlock({ blockNumber: piece.blockNumber, blockTime: piece.blockTime }, piece.events, this.batch);
      this.stats.lastBlock = piece.blockNumber;
      this.stats.lastBlockTime = piece.blockTime;
      this.checkpoint = { ...end, lastBlock: lastKey(piece), block: { time: piece.blockTime, readAt: Date.now() } };
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      this.batch.rollback(mark);
      this.malformed(end, err, sample);
      this.checkpoint = this.sameBlockAt(end);
    }
  }

  /** Records a malformed line: with the batch, or, read while a block is open, with that block (committed with it). */
  private malformed(at: Position, err: FieldError, text: string): void {
    const error = { file: at.file, lineNo: at.lineNo, error: err.message, sample: text.slice(0, 500) };
    if (this.open) this.open.errors.push(error);
    else {
      this.pending.malformed++;
      this.errors.push(error);
    }
    this.opts.log(`${this.loader.stream}/${at.file}:${at.lineNo}: malformed line skipped: ${err.message}`);
  }

  /**
   * Hands the batch to the committer and starts a new one, so that parsing the next batch overlaps with
   * Postgres writing this one. Commits stay strictly in order, one at a time, each with its own checkpoint.
   */
  private async flush(): Promise<void> {
    const cp = this.checkpoint;
    if (!cp || (this.batch.empty && this.pending.lines === 0 && this.errors.length === 0)) return;
    const work = {
      batch: this.batch,
      errors: this.errors,
      pending: this.pending,
      cp: { ...cp },
      fresh: this.fresh,
      fromTime: this.freshFrom,
    };
    // A bus that keeps only recent events (JetStream) is not given a backfill's: no subscriber follows them live,
    // none could resume to them, and publishing a week of history would take the stream longer than loading it.
    const keeps = this.opts.bus?.keepsMs;
    const lastTime = this.stats.lastBlockTime;
    const history =
      this.opts.lane !== undefined ||
      (lastTime !== null && this.opts.historyBefore !== undefined && lastTime < this.opts.historyBefore()) ||
      (keeps !== undefined && lastTime !== null && lastTime < Date.now() - keeps);
    if (history && lastTime !== null && work.fresh) {
      // Told to the subscribers with the first batch published after it (BusGap).
      const from = Math.min(work.fromTime ?? lastTime, this.resumedFrom ?? Number.POSITIVE_INFINITY);
      this.gap ??= { stream: this.key, topics: [], from, until: lastTime };
      this.gap.until = lastTime;
      for (const [topic] of work.batch.eventsByTopic())
        if (!this.gap.topics.includes(topic)) this.gap.topics.push(topic);
      work.fresh = undefined;
    }
    const commit = !this.degraded;
    this.batch = new Batch();
    this.errors = [];
    this.pending = { lines: 0, malformed: 0 };
    this.fresh = undefined;
    this.freshFrom = undefined;
    const previous = this.inflight;
    // A bus that stores events itself gets them before the commit: a crash between the two publishes them again on
    // restart (the bus drops the repeat) instead of losing them. In-process, subscribers read what is committed.
    const publishFirst = this.opts.bus?.durable === true;
    this.inflight = (async () => {
      await previous;
      if (publishFirst) await this.publish(work.batch, work.fresh, work.cp.lastBlock);
      if (commit) {
        await this.commit(work.batch, work.errors, work.pending.malformed, work.cp);
        if (!this.loader.liveOnly) this.stored = work.cp;
        if (work.cp.block) this.stats.committed = work.cp.block;
        this.stats.rows += work.batch.rows;
        this.stats.lines += work.pending.lines;
        this.stats.malformed += work.pending.malformed;
      }
      if (!publishFirst) await this.publish(work.batch, work.fresh, work.cp.lastBlock);
    })();
    // Marked handled here; the failure is rethrown to whoever awaits it next (the next flush or drain).
    this.inflight.catch(() => {});
    // Keep at most one batch in flight: wait for the one before this (its failure surfaces here).
    await previous;
  }

  /** Publishes the batch's events from `fresh` on: those of blocks not published before. */
  private async publish(batch: Batch, fresh: BatchMark | undefined, lastBlock: number | null): Promise<void> {
    if (!fresh) return;
    await this.tellGap();
    if (this.opts.bus) {
      for (const [topic, items] of batch.eventsByTopic()) {
        const from = fresh.events.get(topic) ?? 0;
        const out = from ? items.slice(from) : items;
        if (out.length) await this.opts.bus.publish(topic as Topic, out as Topics[Topic][]);
      }
    }
    this.published = laterKey(this.published, lastBlock);
  }

  /** Waits for every handed-over batch to be committed (`final`: the run ends). */
  private async drain(final = false): Promise<void> {
    await this.flush();
    await this.inflight;
    // A gap at the end of a run is told too (the next run does not know of it); while following, with the first
    // event after it, once.
    if (final) await this.tellGap();
  }

  /** Tells the bus's subscribers of the events it was not given (BusGap), once. */
  private async tellGap(): Promise<void> {
    const gap = this.gap;
    if (!gap || !this.opts.bus) return;
    this.gap = undefined;
    // Told from the lane's first file once: a later gap of the same run starts at its own rows.
    this.resumedFrom = undefined;
    await this.opts.bus.publish('gaps', [gap]);
  }

  /** Rows, malformed-line records and the checkpoint, in one transaction. */
  private async commit(batch: Batch, errors: LineError[], malformed: number, cp: Checkpoint): Promise<void> {
    if (this.loader.liveOnly) return;
    // Its periods of partitioned tables first: making one locks the table until it commits.
    await makePartitions(this.opts.pool, batch.periods);
    await inTransaction(this.opts.pool, async (client) => {
      // The batch follows the checkpoint this reader last saw stored. One committer per stream at a time, and it
      // checks that: a commit this reader gave up on (Postgres stalled before acknowledging it) may still commit
      // once Postgres runs again, and its rows must not be loaded a second time on top of it.
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [INGEST_LOCK_CLASS, this.key]);
      const { rows } = await client.query<{ file: string; byte_offset: number }>(
        'SELECT file, byte_offset FROM platform.ingest_checkpoints WHERE stream = $1',
        [this.key],
      );
      const now = rows[0] ? { file: rows[0].file, offset: rows[0].byte_offset } : null;
      // (A checkpoint this reader has not seen: the transaction throws, and the reader resumes from the stored one.)
      if (now?.file !== this.stored?.file || now?.offset !== this.stored?.offset) {
        throw new StorageUnavailableError(`${this.loader.stream}: the stored checkpoint moved under this reader`);
      }
      // The service's statement limit is for answers; writing a batch may take longer (Batch.write guards it).
      await client.query(`SET LOCAL statement_timeout = ${INGEST_STATEMENT_TIMEOUT_MS}`);
      // The stream's lanes take turns at the rows they share (Batch.write); any other deadlock (with a writer
      // outside ingest) leaves nothing committed either, and the batch is read again from the stored checkpoint.
      await batch.write(client, { shared: this.loader.stream }).catch((err: unknown) => {
        if ((err as { code?: string }).code === DEADLOCK) {
          throw new StorageUnavailableError(`${this.key}: a batch deadlocked with another lane's; loading it again`);
        }
        throw err;
      });
      for (const e of errors) {
        await client.query(
          `INSERT INTO platform.ingest_errors (stream, file, line_no, error, sample) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (stream, file, line_no) DO NOTHING`,
          [this.key, e.file, e.lineNo, e.error, e.sample],
        );
      }
      await client.query(
        `INSERT INTO platform.ingest_checkpoints AS c (stream, file, byte_offset, line_no, last_block, rows_loaded, malformed)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (stream) DO UPDATE SET file = EXCLUDED.file, byte_offset = EXCLUDED.byte_offset,
           line_no = EXCLUDED.line_no, last_block = EXCLUDED.last_block,
           rows_loaded = c.rows_loaded + EXCLUDED.rows_loaded, malformed = c.malformed + EXCLUDED.malformed,
           updated_at = now()`,
        [this.key, cp.file, cp.offset, cp.lineNo, cp.lastBlock, batch.rows, malformed],
      );
    });
  }

  private async loadCheckpoint(): Promise<Checkpoint | null> {
    const { rows } = await this.opts.pool.query<{
      file: string;
      byte_offset: number;
      line_no: number;
      last_block: number | null;
    }>('SELECT file, byte_offset, line_no, last_block FROM platform.ingest_checkpoints WHERE stream = $1', [this.key]);
    const row = rows[0];
    this.stored = row
      ? { file: row.file, offset: row.byte_offset, lineNo: row.line_no, lastBlock: row.last_block }
      : null;
    return this.stored && { ...this.stored };
  }

  /** Live-only streams start at the current end of their newest file (`tailOf`). */
  private async tailPosition(): Promise<Checkpoint | null> {
    const newest = (await listLayoutFiles(this.opts.dataDir, this.loader.stream)).at(-1);
    return newest ? { ...(await tailOf(newest, CHUNK)), lineNo: 0 } : null;
  }
}

export class Ingest {
  private readonly readers: StreamReader[];
  private readonly opts: IngestOptions;
  private stopping = false;
  private running: Promise<void> | undefined;

  constructor(opts: IngestOptions) {
    this.opts = opts;
    const full = {
      follow: false,
      batchRows: 20_000,
      pollMs: 200,
      log: (line: string) => console.error(line),
      ...opts,
    };
    let probe: Promise<boolean> | undefined;
    const storageAnswers = () => {
      probe ??= databaseStatus(opts.pool).then((status) => {
        probe = undefined;
        return status === 'up';
      });
      return probe;
    };
    this.readers = (opts.streams ?? STREAMS)
      .filter((s) => !(opts.lane && LOADERS[s].liveOnly))
      .map((s) => new StreamReader(LOADERS[s], full, () => this.stopping, storageAnswers));
  }

  get stats(): StreamStats[] {
    return this.readers.map((r) => r.stats);
  }

  /** Runs every stream; resolves when all have caught up (or, when following, once stopped). */
  run(): Promise<void> {
    this.running ??= Promise.all(this.readers.map((r) => r.run())).then(() => {});
    return this.running;
  }

  /** Resolves once every stream has read all that exists now (the rest follows in the background). */
  async caughtUp(pollMs = 50): Promise<void> {
    while (!this.readers.every((r) => r.stats.caughtUp)) {
      if (this.stopping) return;
      await sleep(pollMs);
    }
  }

  /**
   * Whether every stream (or these) has read all its files since `timeMs` (what existed then is loaded). A stream
   * held (`hold`) is not waited for.
   */
  caughtUpSince(timeMs: number, streams?: readonly StreamName[]): boolean {
    return this.readers.every(
      (r) =>
        (streams && !streams.includes(r.stats.stream)) ||
        this.held(r.stats.stream) ||
        (r.stats.caughtUpAt !== null && r.stats.caughtUpAt >= timeMs),
    );
  }

  private held(stream: StreamName): boolean {
    return this.opts.hold?.(stream) ?? false;
  }

  /** Every event of these streams before this time is committed (committedUntil; null: nothing yet). */
  loadedUntil(streams: readonly StreamName[]): number | null {
    return committedUntil(this.stats, streams);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }
}
