// The directory layouts a node writes one stream in, read as one sequence of blocks (ingest/FORMATS.md §3):
// `<stream>_by_block` (one block a line), `<stream>_streaming` (`--stream-with-block-info`: one block over as many
// consecutive lines as it takes, each with the block's envelope) and, for fills, the legacy `node_fills` (one
// `[user, fill]` a line, no envelope). A stream's files of every layout are read in hour order by one reader, with one
// checkpoint, so that a node changing layout or re-emitting blocks after a restart loads nothing twice.
import fs from 'node:fs/promises';
import path from 'node:path';
import { decompressFrameSync } from 'lz4-napi';
import { array, FieldError, int, object } from '../platform/fields.ts';
import type { StreamName } from '../wire/node-lines.ts';
import { hourlyOrder, hourOfOrder, parseIsoNs } from './files.ts';

export type Layout = 'events' | 'by_block' | 'streaming';

/** Within one hour, the layouts in the order a node moved through them: legacy lines, then by-block, then streaming. */
const RANK: Record<Layout, number> = { events: 0, by_block: 1, streaming: 2 };

/** The directories a stream may be found in, relative to the data dir. */
export function layoutDirs(stream: StreamName): { dir: string; layout: Layout }[] {
  const base = stream.replace(/_by_block$/, '');
  const dirs: { dir: string; layout: Layout }[] = [];
  // The node's legacy per-event lines are loaded for fills only (the archive's `node_fills`, 2025-05 to 2025-07).
  if (stream === 'node_fills_by_block') dirs.push({ dir: base, layout: 'events' });
  dirs.push({ dir: stream, layout: 'by_block' }, { dir: `${base}_streaming`, layout: 'streaming' });
  return dirs;
}

export interface StreamFile {
  /**
   * The name kept in the checkpoint: `hourly/YYYYMMDD/H[.lz4]` in the `_by_block` dir (as before there were other
   * layouts), `<dir>/hourly/YYYYMMDD/H[.lz4]` in any other.
   */
  name: string;
  absolute: string;
  layout: Layout;
  /** Sort key: hour, then layout. */
  order: number;
}

/** Files of a stream dir, relative (`hourly/YYYYMMDD/H[.lz4]`), in time order. */
export async function listStreamFiles(streamDir: string): Promise<string[]> {
  const days = await fs.readdir(path.join(streamDir, 'hourly')).catch(() => [] as string[]);
  const files: string[] = [];
  for (const day of days) {
    if (!/^\d{8}$/.test(day)) continue;
    for (const hour of await fs.readdir(path.join(streamDir, 'hourly', day)).catch(() => [] as string[])) {
      const rel = `hourly/${day}/${hour}`;
      if (!Number.isNaN(hourlyOrder(rel))) files.push(rel);
    }
  }
  return files.sort((a, b) => hourlyOrder(a) - hourlyOrder(b));
}

/** Sort key of a checkpoint's file name (NaN when it is none). */
export function fileOrder(stream: StreamName, name: string): number {
  const slash = name.indexOf('/hourly/');
  const dir = slash < 0 ? stream : name.slice(0, slash);
  const layout = layoutDirs(stream).find((d) => d.dir === dir)?.layout;
  if (!layout) return Number.NaN;
  return hourlyOrder(slash < 0 ? name : name.slice(slash + 1)) * 10 + RANK[layout];
}

/** The start (epoch ms) of the hour a file holds (its `order` is that hour's, then its layout's rank). */
export function fileHour(file: StreamFile): number {
  return hourOfOrder(Math.floor(file.order / 10));
}

/** Every file of a stream, in every layout, in the order they are read. */
export async function listLayoutFiles(dataDir: string, stream: StreamName): Promise<StreamFile[]> {
  const files: StreamFile[] = [];
  for (const { dir, layout } of layoutDirs(stream)) {
    for (const rel of await listStreamFiles(path.join(dataDir, dir))) {
      files.push({
        name: dir === stream ? rel : `${dir}/${rel}`,
        absolute: path.join(dataDir, dir, rel),
        layout,
        order: hourlyOrder(rel) * 10 + RANK[layout],
      });
    }
  }
  return files.sort((a, b) => a.order - b.order);
}

/** What one line holds of a block. */
export interface Piece {
  /** `block_number`; 0 on a legacy line (it has none). */
  blockNumber: number;
  blockTime: number;
  /** A legacy line: its block is known only by its fills' `time`. */
  legacy: boolean;
  events: unknown[];
}

/** One line of a layout, parsed (FieldError when malformed). */
export function parsePiece(layout: Layout, text: string): Piece {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new FieldError('not valid JSON');
  }
  if (layout === 'events') {
    // `[user, fill]`: the fills of one block are consecutive lines with the block's time (ms) as their `time`.
    const pair = array(parsed, 'line');
    if (pair.length !== 2) throw new FieldError('line: must be [user, fill]');
    const time = int(object(pair[1], 'fill'), 'time');
    return { blockNumber: 0, blockTime: time, legacy: true, events: [parsed] };
  }
  const line = object(parsed, 'line');
  const blockNumber = int(line, 'block_number');
  const blockTime = parseIsoNs(typeof line.block_time === 'string' ? line.block_time : '');
  if (Number.isNaN(blockTime)) throw new FieldError('block_time: must be an ISO-8601 time');
  if (!Array.isArray(line.events)) throw new FieldError('events: must be an array');
  return { blockNumber, blockTime, legacy: false, events: line.events };
}

/**
 * The position of the last block loaded, as the checkpoint keeps it (`last_block`): its block number, or, for a
 * legacy line (no block number), the negated time of its fills.
 */
export function lastKey(piece: Piece): number {
  return piece.legacy ? -piece.blockTime : piece.blockNumber;
}

/**
 * Whether a block is at or before the last one loaded (`last`, from `lastKey`): a node re-emitting blocks after a
 * restart, or a layout's block that another layout already gave. Block numbers are compared where both sides have
 * one; times where either is a legacy line. A legacy line after a block-numbered one is not comparable: it is new.
 */
export function alreadyLoaded(piece: Piece, last: number | null): boolean {
  if (last === null) return false;
  if (last < 0) return piece.blockTime <= -last;
  return !piece.legacy && piece.blockNumber <= last;
}

/** Whether two pieces are of the same block (consecutive lines of a streaming or legacy file). */
export function sameBlock(a: Piece, b: Piece): boolean {
  return a.legacy === b.legacy && (a.legacy ? a.blockTime === b.blockTime : a.blockNumber === b.blockNumber);
}

/** Whether `b` comes before `a` in the node's order (the node went back: it re-emits from an older block). */
export function before(a: Piece, b: Piece): boolean {
  return a.legacy === b.legacy && (a.legacy ? b.blockTime < a.blockTime : b.blockNumber < a.blockNumber);
}

/** The later of two `lastKey` positions (a block-numbered one is later than a legacy one: the node moved on). */
export function laterKey(a: number | null, b: number | null): number | null {
  if (a === null || b === null) return a ?? b;
  if (a < 0 !== b < 0) return Math.max(a, b);
  return a < 0 ? Math.min(a, b) : Math.max(a, b);
}

/** Bytes of a file from `offset`, or the whole decompressed content of an archived `.lz4` file. */
export class FileSource {
  private archive: Buffer | undefined;
  constructor(readonly absolute: string) {}

  async read(offset: number, into: Buffer): Promise<number> {
    if (this.absolute.endsWith('.lz4')) {
      this.archive ??= decompressFrameSync(await fs.readFile(this.absolute));
      return this.archive.copy(into, 0, offset, Math.min(this.archive.length, offset + into.length));
    }
    const handle = await fs.open(this.absolute, 'r');
    try {
      const { bytesRead } = await handle.read(into, 0, into.length, offset);
      return bytesRead;
    } finally {
      await handle.close();
    }
  }
}

/**
 * Where a live-only stream starts reading `file`: after its last complete line (a line being written is read whole
 * later), that line's block counting as passed (a streaming file's next lines may still be of it, and its start was
 * not read). Reads at most the last `window` bytes.
 */
export async function tailOf(
  file: StreamFile,
  window: number,
): Promise<{ file: string; offset: number; lastBlock: number | null }> {
  const { size } = await fs.stat(file.absolute);
  const head = Buffer.allocUnsafe(Math.min(size, window));
  const fd = await fs.open(file.absolute, 'r');
  try {
    const from = Math.max(0, size - head.length);
    const { bytesRead } = await fd.read(head, 0, head.length, from);
    const lastNl = head.subarray(0, bytesRead).lastIndexOf(10);
    const previousNl = lastNl < 0 ? -1 : head.subarray(0, lastNl).lastIndexOf(10);
    let lastBlock: number | null = null;
    try {
      if (lastNl >= 0) lastBlock = lastKey(parsePiece(file.layout, head.toString('utf8', previousNl + 1, lastNl)));
    } catch {
      // Not a whole line (longer than what was read) or malformed: nothing to skip.
    }
    return { file: file.name, offset: lastNl < 0 ? from : from + lastNl + 1, lastBlock };
  } finally {
    await fd.close();
  }
}
