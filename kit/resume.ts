// Stored streams: a live stream whose every event is also a stored row, so that a subscriber can be given what it
// missed from the store (not the event bus's log, which keeps an hour at most), then the live events, with no gap
// and no duplicate. A domain declares a stream's parts (one bus topic each, and the SQL reading its rows back);
// this module owns the positions, the hand-over from stored to live, and the replay of a window. /ws adapts it
// (compat-rest/ws/resume.ts), and GraphQL (kit/live.ts storedIterator, kit/replay-fields.ts).
import type pg from 'pg';
import { REPLAY_MAX_MS, REPLAY_SPEED } from '../access/costs.ts';
import type { EventSource, TopicMap } from '../events/bus.ts';
import type { Coverage } from '../platform/coverage.ts';
import { FieldError } from '../platform/fields.ts';
import { groupsOf } from '../platform/groups.ts';

/** What every stored row carries: its block and the block's time (the time grows with the block). */
export interface BlockRow {
  block_number: number;
  time: number;
}

/** Where a subscriber is in one part: every row of the blocks up to `block` (whose time is `time`). */
export interface RowPosition {
  block: number;
  time: number;
}

/** One bus topic of a stored stream and the rows of it the store holds. */
export interface StoredPart<E, R extends BlockRow = BlockRow> {
  source: EventSource<TopicMap>;
  topic: string;
  /** The dataset of dataCoverage (platform/coverage.ts) its rows are: where a replay finds the store's holes. */
  dataset?: string;
  /**
   * The subscriber's events in a group of rows (a live batch, or one stored block), as the live stream makes them
   * (its `select`): none when no row is the subscriber's.
   */
  select(rows: readonly R[]): readonly E[];
  /**
   * Stored rows after `after` in (time, block) order, then the order ingest wrote them in, at most `limit`, only of
   * blocks before `beforeBlock` when given and of times before `beforeTime` when given. A superset of the subscriber's
   * rows is fine (`select` filters), as long as every one of them is there.
   */
  read(after: RowPosition, limit: number, bounds: { beforeBlock?: number; beforeTime?: number }): Promise<R[]>;
  /** The position of the subscriber's newest stored row (null: none): where a subscription starting now stands. */
  head(): Promise<RowPosition | null>;
}

/** A stream of events `E` made of one or more parts, each followed with its own position. */
export interface StoredStream<E> {
  parts: readonly StoredPart<E, BlockRow>[];
}

/** A part whose rows are of type R, as a stream's part (the stream only hands it its own rows). */
export const storedPart = <E, R extends BlockRow>(part: StoredPart<E, R>): StoredPart<E, BlockRow> =>
  part as unknown as StoredPart<E, BlockRow>;

/** Rows read per query; a block holding more is read whole. */
export const PAGE_ROWS = 5_000;

const POSITION = /^(\d{1,15})-(\d{1,15})$/;

/** A position: each part's `block-time`, joined by `~` (one part: `812345-1767225600123`). */
export function encodePosition(positions: readonly RowPosition[]): string {
  return positions.map((p) => `${p.block}-${p.time}`).join('~');
}

/** Reads a client's position for a stream of `parts` parts; a FieldError on `field` when it is not one. */
export function decodePosition(text: unknown, parts: number, field = 'after'): RowPosition[] {
  const got = JSON.stringify(text)?.slice(0, 80) ?? 'nothing';
  if (typeof text !== 'string') throw new FieldError(`${field}: must be a position string, got ${got}`);
  const pieces = text.split('~');
  const positions = pieces.map((p) => POSITION.exec(p));
  if (pieces.length !== parts || positions.some((m) => m === null)) {
    throw new FieldError(
      `${field}: not a position of this subscription (pass the "position" of a frame it sent), got ${got}`,
    );
  }
  return positions.map((m) => ({ block: Number(m?.[1]), time: Number(m?.[2]) }));
}

const after = (a: RowPosition, b: RowPosition) => a.time > b.time || (a.time === b.time && a.block > b.block);

/** One stored block of a part: its rows as read (before `select`). */
interface Group {
  position: RowPosition;
  rows: BlockRow[];
}

/**
 * The stored blocks of `part` after `from`, in order, in pages of whole blocks: a page that came back full loses its
 * last block (perhaps cut), read again with the next page; a block bigger than a page is read with a bigger one.
 */
async function* storedBlocks(
  part: StoredPart<unknown>,
  from: RowPosition,
  bounds: { beforeBlock?: number; beforeTime?: number },
  stopped: () => boolean,
): AsyncGenerator<Group> {
  let at = from;
  let limit = PAGE_ROWS;
  while (!stopped()) {
    const rows = await part.read(at, limit, bounds);
    const groups: Group[] = [];
    for (const row of rows) {
      const last = groups[groups.length - 1];
      if (last && last.position.block === row.block_number) last.rows.push(row);
      else groups.push({ position: { block: row.block_number, time: row.time }, rows: [row] });
    }
    const full = rows.length >= limit;
    if (full) {
      if (groups.length === 1) {
        limit *= 2;
        continue;
      }
      groups.pop();
    }
    for (const group of groups) {
      yield group;
      at = group.position;
    }
    if (!full) return;
    limit = PAGE_ROWS;
  }
}

/** How a stored stream reaches one subscriber. */
export interface StoredSink<E> {
  /** One event with the position the subscriber stands at once it has it. */
  send(event: E, position: string): void;
  /**
   * Resolves once the subscriber can take more (its socket's backlog drained): false when it is gone. Stored rows
   * are read no faster than it takes them.
   */
  ready(): Promise<boolean>;
}

/** A batch's rows by block, the blocks in the order of their first row (a bus batch holds them in block order). */
function blocksOf(rows: readonly BlockRow[]): BlockRow[][] {
  if (rows.length && rows.every((r) => r.block_number === (rows[0] as BlockRow).block_number))
    return [rows as BlockRow[]];
  return groupsOf(rows, (r) => r.block_number);
}

/** The last of a batch's rows in (time, block) order: where a subscriber that has the batch stands. */
function lastOf(rows: readonly BlockRow[]): RowPosition | null {
  let last: RowPosition | null = null;
  for (const r of rows) {
    const p = { block: r.block_number, time: r.time };
    if (last === null || after(p, last)) last = p;
  }
  return last;
}

/** Per event source and topic: where the last batch this process delivered stands (null: none seen yet). */
const delivered = new WeakMap<EventSource<TopicMap>, Map<string, RowPosition | null>>();

/**
 * Where a subscriber starting now stands in `topic`: the last batch delivered here, followed from the first call on
 * by one handler per topic (null until a batch was delivered; the caller reads the store's head instead). A
 * subscriber that subscribes in the same tick gets every later batch live, so it needs no read of the store.
 */
function deliveredAt(source: EventSource<TopicMap>, topic: string): RowPosition | null {
  let topics = delivered.get(source);
  if (!topics) {
    topics = new Map();
    delivered.set(source, topics);
  }
  const known = topics;
  if (!known.has(topic)) {
    known.set(topic, null);
    source.subscribe(topic, (rows) => {
      const last = lastOf(rows as readonly BlockRow[]);
      const now = known.get(topic) ?? null;
      if (last && (now === null || after(last, now))) known.set(topic, last);
    });
  }
  return known.get(topic) ?? null;
}

/**
 * Follows a stored stream from a position (`after`, or null: from now): the stored events after it, then live ones.
 * From now, each part stands where the last batch of its topic delivered in this process stood, with no read of the
 * store (or, before any was, at its newest stored row, read). Live batches are followed first and held while the
 * store is read; then each part's first live batch after a read of the store (and the first after a bus gap) is
 * preceded by the stored rows between where the subscriber stands and that batch's first block (rows a bus that
 * publishes before it commits had not committed when the store was read), and a live row of a block the store gave
 * is dropped (only those: a live batch may hold rows of blocks the subscriber stands past, its own rows that came
 * after another key's batch of the same blocks, as JetStream sends them). Resolves once the stored events are sent, with the teardown; a bad position rejects with
 * a FieldError on `after`.
 */
export async function followStored<E>(
  stream: StoredStream<E>,
  afterText: string | null,
  sink: StoredSink<E>,
): Promise<() => void> {
  const { parts } = stream;
  const positions = afterText === null ? null : decodePosition(afterText, parts.length);
  let stopped = false;
  const queue: { i: number; rows: readonly BlockRow[] }[] = [];
  /** Parts whose next live batch is preceded by a read of the store (the first one, the first after a gap). */
  const unchecked = new Set(parts.map((_, i) => i));
  let live = false;
  let pumping: Promise<void> | null = null;
  let failed: unknown = null;
  const offs = parts.map((part, i) =>
    part.source.subscribe(part.topic, (rows) => {
      const batch = rows as readonly BlockRow[];
      // Nothing to read first and nothing queued before it: handed on at once.
      if (live && !pumping && !queue.length && !unchecked.has(i)) take(i, batch);
      else {
        queue.push({ i, rows: batch });
        if (live) pump();
      }
    }),
  );
  // A backfill the bus was not given: its rows are read from the store before the next live batch.
  const source = parts[0]?.source;
  if (source) {
    offs.push(
      source.subscribe('gaps', (gaps) => {
        for (const gap of gaps as readonly { topics: string[] }[])
          for (const [i, part] of parts.entries()) if (gap.topics.includes(part.topic)) unchecked.add(i);
      }),
    );
  }
  const stop = () => {
    stopped = true;
    for (const off of offs) off();
  };
  const at: RowPosition[] = [];
  /**
   * Per part, the block up to which the store gave the subscriber its rows (after a read of it; absent: none read):
   * a live row of such a block is one it has. Only those are dropped: a bus may deliver one block's rows in several
   * batches (JetStream sends each key's rows, a coin's trades, as a message of its own), so a live row of a block
   * at or before where the subscriber stands is not one it has unless the store gave it.
   */
  const stored: (number | undefined)[] = [];
  const emit = (i: number, rows: readonly BlockRow[], position: RowPosition) => {
    at[i] = position;
    const events = parts[i]?.select(rows) ?? [];
    if (!events.length) return;
    const text = encodePosition(at);
    for (const event of events) sink.send(event, text);
  };
  /**
   * A live batch of part `i`, less the blocks the store gave, sent a block at a time as the store sends them: a batch
   * of several blocks (ingest catching up) is then sent, and its items' cursors read, the same whether an instance
   * had it live or from the store. A block with no event of the subscriber does not move it: the batch may be
   * another key's rows of blocks whose rows of the subscriber's key come in a later batch.
   */
  const take = (i: number, rows: readonly BlockRow[]) => {
    const floor = stored[i];
    const fresh = floor === undefined ? rows : rows.filter((r) => r.block_number > floor);
    for (const block of blocksOf(fresh)) {
      const events = parts[i]?.select(block) ?? [];
      if (!events.length) continue;
      const last = lastOf(block) as RowPosition;
      const now = at[i] as RowPosition;
      at[i] = after(last, now) ? last : now;
      const text = encodePosition(at);
      for (const event of events) sink.send(event, text);
    }
  };
  /** Sends the stored blocks of part `i` after where it stands (before `beforeBlock`), pausing for the subscriber. */
  const sendStored = async (i: number, beforeBlock?: number) => {
    const part = parts[i] as StoredPart<E>;
    for await (const group of storedBlocks(part, at[i] as RowPosition, { beforeBlock }, () => stopped)) {
      if (!(await sink.ready())) {
        stopped = true;
        return;
      }
      emit(i, group.rows, group.position);
    }
    stored[i] = (at[i] as RowPosition).block;
  };
  const pump = () => {
    if (pumping) return;
    pumping = (async () => {
      while (queue.length && !stopped) {
        const { i, rows } = queue.shift() as { i: number; rows: readonly BlockRow[] };
        if (!rows.length) continue;
        if (unchecked.delete(i)) {
          let first = rows[0] as BlockRow;
          for (const r of rows) if (r.block_number < first.block_number) first = r;
          await sendStored(i, first.block_number);
        }
        take(i, rows);
      }
    })()
      .catch((err: unknown) => {
        failed = err;
        stop();
      })
      .finally(() => {
        pumping = null;
        if (queue.length && !stopped && failed === null) pump();
      });
  };
  try {
    /** The parts whose stored rows after where they stand are read before going live. */
    const read: number[] = [];
    if (positions) {
      for (const [i, p] of positions.entries()) {
        at[i] = p;
        read.push(i);
      }
    } else {
      for (const [i, part] of parts.entries()) {
        const now = deliveredAt(part.source, part.topic);
        if (now) {
          at[i] = now;
          unchecked.delete(i);
        } else read.push(i);
      }
      const heads = await Promise.all(read.map((i) => (parts[i] as StoredPart<E>).head()));
      for (const [k, i] of read.entries()) at[i] = heads[k] ?? { block: 0, time: 0 };
    }
    // The parts' stored events in (time, block) order across parts: a block at a time from the part that is behind.
    const cursors = read.map((i) =>
      storedBlocks(parts[i] as StoredPart<E>, at[i] as RowPosition, {}, () => stopped)[Symbol.asyncIterator](),
    );
    const heads = await Promise.all(cursors.map((c) => c.next()));
    while (!stopped) {
      let pick = -1;
      for (const [k, h] of heads.entries()) {
        if (h.done) continue;
        const best = heads[pick];
        if (pick < 0 || (best && !best.done && after(best.value.position, h.value.position))) pick = k;
      }
      if (pick < 0) break;
      const head = heads[pick];
      if (!head || head.done) break;
      if (!(await sink.ready())) {
        stop();
        break;
      }
      emit(read[pick] as number, head.value.rows, head.value.position);
      heads[pick] = await (cursors[pick] as AsyncIterator<Group>).next();
    }
    for (const i of read) stored[i] = (at[i] as RowPosition).block;
  } catch (err) {
    stop();
    throw err;
  }
  live = true;
  pump();
  return stop;
}

/** The store's holes in a window (no coverage), as the replay's `gap` frames tell them. */
export interface Hole {
  from: number;
  to: number;
}

/** What a replay of a stored window sends, besides the events. */
export interface ReplaySink<E> extends StoredSink<E> {
  gap(hole: Hole): void;
  complete(summary: { start: number; end: number; frames: number }): void;
}

export interface ReplayOptions {
  start: number;
  end: number;
  /** Data time over wall time: 60 plays an hour in a minute. */
  speed: number;
  holes: readonly Hole[];
  /** The clock pacing reads (monotonic) and how it waits: a test's fake clock. */
  clock?: { now(): number; sleep(ms: number): Promise<void> };
}

const realClock = {
  now: () => performance.now(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
};

/**
 * Replays the stored events of [start, end) in the order the stream sent them live, each with its position, paced by
 * the rows' own times at `speed`: the event of time t goes out when (t - start) / speed has passed since the replay
 * began. A hole of the store (no coverage) goes out as a `gap` when the replay reaches it. Resolves when done (or the
 * subscriber left), having sent `replayComplete`; `stopped` ends it early.
 */
export async function replayStored<E>(
  stream: StoredStream<E>,
  opts: ReplayOptions,
  sink: ReplaySink<E>,
  stopped: () => boolean,
): Promise<void> {
  const { parts } = stream;
  const clock = opts.clock ?? realClock;
  const began = clock.now();
  // Rows of `start`'s millisecond and after: the last position before it.
  const from: RowPosition = { block: Number.MAX_SAFE_INTEGER, time: opts.start - 1 };
  const at: RowPosition[] = parts.map(() => ({ block: 0, time: opts.start }));
  const holes = [...opts.holes].sort((a, b) => a.from - b.from);
  let frames = 0;
  const due = async (time: number) => {
    const wait = (time - opts.start) / opts.speed - (clock.now() - began);
    if (wait > 0) await clock.sleep(wait);
  };
  const cursors = parts.map((part) =>
    storedBlocks(part, from, { beforeTime: opts.end }, stopped)[Symbol.asyncIterator](),
  );
  const heads = await Promise.all(cursors.map((c) => c.next()));
  for (;;) {
    if (stopped()) return;
    let pick = -1;
    for (const [i, h] of heads.entries()) {
      if (h.done) continue;
      const best = heads[pick];
      if (pick < 0 || (best && !best.done && after(best.value.position, h.value.position))) pick = i;
    }
    const head = pick < 0 ? undefined : heads[pick];
    const next = head && !head.done ? head.value : undefined;
    // Holes that start before the next event (all that are left, at the end).
    while (holes.length && (next === undefined || (holes[0] as Hole).from <= next.position.time)) {
      const hole = holes.shift() as Hole;
      await due(hole.from);
      if (stopped() || !(await sink.ready())) return;
      sink.gap(hole);
    }
    if (!next) break;
    await due(next.position.time);
    if (stopped() || !(await sink.ready())) return;
    at[pick] = next.position;
    const events = parts[pick]?.select(next.rows) ?? [];
    if (events.length) {
      const text = encodePosition(at);
      for (const event of events) sink.send(event, text);
      frames += events.length;
    }
    heads[pick] = await (cursors[pick] as AsyncIterator<Group>).next();
  }
  await due(opts.end);
  if (!stopped()) sink.complete({ start: opts.start, end: opts.end, frames });
}

/** A replay's window and pace, as read from a request. */
export interface ReplayWindow {
  start: number;
  end: number;
  speed: number;
}

function integerMs(v: unknown, key: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new FieldError(`${key}: must be a time in epoch milliseconds, got ${JSON.stringify(v)?.slice(0, 60)}`);
  }
  return v;
}

/**
 * Reads a replay's `start`, `end` (ms, end after start, at most REPLAY_MAX_MS after it) and `speed` (REPLAY_SPEED); a
 * FieldError names the first bad one. The same rules on /ws and GraphQL.
 */
export function readReplayWindow(sent: { start?: unknown; end?: unknown; speed?: unknown }): ReplayWindow {
  const start = integerMs(sent.start, 'start');
  const end = integerMs(sent.end, 'end');
  if (end <= start) throw new FieldError(`end: must be after start (${start}), got ${end}`);
  if (end - start > REPLAY_MAX_MS) {
    throw new FieldError(`end: at most ${REPLAY_MAX_MS / 3_600_000} h after start, got ${end - start} ms after it`);
  }
  const speed = sent.speed;
  if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < REPLAY_SPEED.min || speed > REPLAY_SPEED.max) {
    throw new FieldError(
      `speed: must be a number from ${REPLAY_SPEED.min} to ${REPLAY_SPEED.max}, got ${JSON.stringify(speed)?.slice(0, 60)}`,
    );
  }
  return { start, end, speed };
}

/**
 * The store's holes in [start, end) for some datasets: before a dataset's complete coverage (none held, or a
 * backfill still loading), and after its latest row. Overlapping holes of several datasets are merged.
 */
export function holesOf(coverage: Coverage, datasets: readonly string[], start: number, end: number): Hole[] {
  const raw: Hole[] = [];
  for (const name of datasets) {
    const c = coverage.datasets[name];
    if (!c || c.start === null || c.latest === null) {
      raw.push({ from: start, to: end });
      continue;
    }
    if (start < c.start) raw.push({ from: start, to: Math.min(end, c.start) });
    if (end > c.latest + 1) raw.push({ from: Math.max(start, c.latest + 1), to: end });
  }
  const holes: Hole[] = [];
  for (const h of raw.filter((h) => h.to > h.from).sort((a, b) => a.from - b.from)) {
    const last = holes[holes.length - 1];
    if (last && h.from <= last.to) last.to = Math.max(last.to, h.to);
    else holes.push({ ...h });
  }
  return holes;
}

/** The store's holes in a window for some datasets (dataCoverage read now): what a replay tells as gaps. */
export type HolesOf = (datasets: readonly string[], start: number, end: number) => Promise<Hole[]>;

/** HolesOf over dataCoverage (a subgraph context's `coverage`), read when a replay starts. */
export const holesFrom =
  (coverage: (now: number) => Promise<Coverage>): HolesOf =>
  async (datasets, start, end) =>
    holesOf(await coverage(Date.now()), datasets, start, end);

/**
 * A replay of a stored stream's window, its holes read first from the datasets its parts declare: what /ws's
 * `replay` subscription and GraphQL's replay fields run. Resolves when done (replayComplete sent) or stopped.
 */
export async function replayWindow<E>(
  stream: StoredStream<E>,
  window: ReplayWindow,
  holes: HolesOf,
  sink: ReplaySink<E>,
  stopped: () => boolean,
  clock?: ReplayOptions['clock'],
): Promise<void> {
  const datasets = [...new Set(stream.parts.flatMap((p) => (p.dataset ? [p.dataset] : [])))];
  const found = await holes(datasets, window.start, window.end);
  await replayStored(stream, { ...window, holes: found, clock }, sink, stopped);
}

/**
 * The SQL of a part's `read` over one table: `where` (its own parameters from $1, e.g. `address = $1`), after a
 * position in (time, block) order, then `order` (the table's order inside a block).
 */
export function blockOrderedReader<R extends BlockRow>(
  pool: pg.Pool,
  spec: { from: string; columns: string; where: string; params: readonly unknown[]; order: string },
): Pick<StoredPart<never, R>, 'read' | 'head'> {
  const n = spec.params.length;
  const where = spec.where ? `${spec.where} AND ` : '';
  return {
    async read(after, limit, bounds) {
      const params = [...spec.params, after.time, after.block, limit];
      let extra = '';
      if (bounds.beforeBlock !== undefined) {
        params.push(bounds.beforeBlock);
        extra += ` AND block_number < $${params.length}`;
      }
      if (bounds.beforeTime !== undefined) {
        params.push(bounds.beforeTime);
        extra += ` AND time < $${params.length}`;
      }
      const { rows } = await pool.query<R>(
        `SELECT ${spec.columns} FROM ${spec.from}
         WHERE ${where}time >= $${n + 1} AND (time, block_number) > ($${n + 1}, $${n + 2})${extra}
         ORDER BY time, block_number, ${spec.order} LIMIT $${n + 3}`,
        params,
      );
      return rows;
    },
    async head() {
      const { rows } = await pool.query<{ block_number: number; time: number }>(
        `SELECT block_number, time FROM ${spec.from} ${spec.where ? `WHERE ${spec.where}` : ''}
         ORDER BY time DESC, block_number DESC LIMIT 1`,
        [...spec.params],
      );
      const row = rows[0];
      return row ? { block: row.block_number, time: row.time } : null;
    },
  };
}
