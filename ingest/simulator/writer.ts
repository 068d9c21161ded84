// Buffered writer of the node's hourly files (`<dataDir>/<stream>/hourly/YYYYMMDD/H`): lines are gathered per
// stream and written in large chunks, one open file per stream, rolling over at the hour. Also finds where an
// earlier run stopped, so a restarted simulator appends exactly the blocks that are missing.
import fs from 'node:fs';
import path from 'node:path';
import { STREAMS, type StreamName } from '../../wire/node-lines.ts';
import { hourlyOrder, hourlyPath } from '../files.ts';

export type ResumePoints = Partial<Record<StreamName, number>>;

export interface WriterOptions {
  /** Buffer size per stream: bytes gathered before a write; `flush()` forces it. */
  flushBytes?: number;
  /** Blocks at or below these numbers are already on disk and are not written again. */
  resumeAfter?: ResumePoints;
}

interface StreamFile {
  hour: number;
  fd: number;
  /** Lines are encoded into this buffer at once, so no string outlives its block (cheap young-gen GC). */
  buf: Buffer;
  used: number;
}

const HOUR_MS = 3600_000;

export class HourlyFileWriter {
  readonly dataDir: string;
  private readonly flushBytes: number;
  private readonly resumeAfter: ResumePoints;
  private readonly files = new Map<StreamName, StreamFile>();
  private readonly madeDirs = new Set<string>();
  /** Buffers of closed hour files, reused by the next hour. */
  private readonly spare: Buffer[] = [];
  bytesWritten = 0;
  linesWritten = 0;

  constructor(dataDir: string, opts: WriterOptions = {}) {
    this.dataDir = dataDir;
    this.flushBytes = opts.flushBytes ?? 4 << 20;
    this.resumeAfter = opts.resumeAfter ?? {};
  }

  /** False for blocks an earlier run already wrote to this stream. */
  wants(stream: StreamName, blockNumber: number): boolean {
    const after = this.resumeAfter[stream];
    return after === undefined || blockNumber > after;
  }

  append(stream: StreamName, timeMs: number, line: string): void {
    const hour = Math.floor(timeMs / HOUR_MS);
    let file = this.files.get(stream);
    if (!file || file.hour !== hour) {
      if (file) this.closeFile(file);
      file = this.openFile(stream, timeMs, hour);
      this.files.set(stream, file);
    }
    this.linesWritten++;
    // UTF-8 needs at most 3 bytes per UTF-16 unit; lines are ASCII in practice.
    const worst = line.length * 3;
    if (worst > file.buf.length - file.used) this.flushFile(file);
    if (worst > file.buf.length) {
      this.bytesWritten += fs.writeSync(file.fd, line);
      return;
    }
    file.used += file.buf.write(line, file.used, 'utf8');
  }

  flush(): void {
    for (const file of this.files.values()) this.flushFile(file);
  }

  close(): void {
    for (const file of this.files.values()) this.closeFile(file);
    this.files.clear();
  }

  private openFile(stream: StreamName, timeMs: number, hour: number): StreamFile {
    const file = hourlyPath(this.dataDir, stream, timeMs);
    const dir = path.dirname(file);
    if (!this.madeDirs.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    return { hour, fd: fs.openSync(file, 'a'), buf: this.takeBuffer(), used: 0 };
  }

  private flushFile(file: StreamFile): void {
    let offset = 0;
    while (offset < file.used) offset += fs.writeSync(file.fd, file.buf, offset, file.used - offset);
    this.bytesWritten += file.used;
    file.used = 0;
  }

  private closeFile(file: StreamFile): void {
    this.flushFile(file);
    fs.closeSync(file.fd);
    this.spare.push(file.buf);
  }

  private takeBuffer(): Buffer {
    return this.spare.pop() ?? Buffer.allocUnsafe(this.flushBytes);
  }
}

/**
 * The last complete block of each stream under `dataDir`. A torn last line (a crash mid-write) is cut off so the
 * next append starts on a fresh line.
 */
export function scanResumePoints(dataDir: string): ResumePoints {
  const points: ResumePoints = {};
  for (const stream of STREAMS) {
    const files = listHourlyFiles(path.join(dataDir, stream)).reverse();
    for (const file of files) {
      const last = lastCompleteBlock(file);
      if (last !== null) {
        points[stream] = last;
        break;
      }
    }
  }
  return points;
}

/** Hourly files of one stream directory, oldest first. */
export function listHourlyFiles(streamDir: string): string[] {
  const hourlyDir = path.join(streamDir, 'hourly');
  if (!fs.existsSync(hourlyDir)) return [];
  const found: { file: string; order: number }[] = [];
  for (const day of fs.readdirSync(hourlyDir)) {
    const dayDir = path.join(hourlyDir, day);
    if (!fs.statSync(dayDir).isDirectory()) continue;
    for (const hour of fs.readdirSync(dayDir)) {
      const order = hourlyOrder(`hourly/${day}/${hour}`);
      if (!Number.isNaN(order) && !hour.endsWith('.lz4')) found.push({ file: path.join(dayDir, hour), order });
    }
  }
  return found.sort((a, b) => a.order - b.order).map((f) => f.file);
}

function lastCompleteBlock(file: string): number | null {
  const size = fs.statSync(file).size;
  if (size === 0) return null;
  const fd = fs.openSync(file, 'r+');
  try {
    let readFrom = size;
    let tail = '';
    // Read backwards until the tail holds a complete line (a Funding line can be a few MB).
    while (readFrom > 0) {
      const length = Math.min(1 << 20, readFrom);
      readFrom -= length;
      const buf = Buffer.alloc(length);
      fs.readSync(fd, buf, 0, length, readFrom);
      tail = buf.toString('latin1') + tail;
      const lastNewline = tail.lastIndexOf('\n');
      if (lastNewline < 0) continue;
      const completeEnd = readFrom + lastNewline + 1;
      if (completeEnd < size) fs.ftruncateSync(fd, completeEnd);
      const lineStart = tail.lastIndexOf('\n', lastNewline - 1) + 1;
      if (lineStart === 0 && readFrom > 0) continue;
      const match = /"block_number":(\d+)/.exec(tail.slice(lineStart, lastNewline));
      return match ? Number(match[1]) : null;
    }
    // No newline at all: the whole file is one torn line.
    fs.ftruncateSync(fd, 0);
    return null;
  } finally {
    fs.closeSync(fd);
  }
}
