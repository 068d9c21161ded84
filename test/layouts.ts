// Writing node output in each layout a node writes (ingest/FORMATS.md §3): the streaming form of by-block lines, the
// legacy per-event `node_fills` lines, LZ4-compressed hourly files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { compressFrameSync } from 'lz4-napi';
import { hourlyKey } from '../ingest/files.ts';

interface Envelope {
  local_time: string;
  block_time: string;
  block_number: number;
  events: unknown[];
}

/** Appends lines (newline added) to `<dataDir>/<dir>/hourly/<date>/<H>` for the hour of `timeMs`. */
export async function appendLines(dataDir: string, dir: string, timeMs: number, lines: string[]): Promise<string> {
  const file = path.join(dataDir, dir, hourlyKey(timeMs));
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

/**
 * A block line as a `--stream-with-block-info` node writes it: one line per `perLine` events, each repeating the
 * block's envelope (`local_time` advancing by a microsecond a line, as the node's clock does).
 */
export function streamingLines(line: Envelope | string, perLine = 1): string[] {
  const b: Envelope = typeof line === 'string' ? JSON.parse(line) : line;
  const lines: string[] = [];
  for (let i = 0; i < b.events.length; i += perLine) {
    const local = `${b.local_time.slice(0, 23)}${String(i).padStart(6, '0')}`;
    lines.push(JSON.stringify({ ...b, local_time: local, events: b.events.slice(i, i + perLine) }));
  }
  return lines;
}

/** A by-block fills line as the legacy `node_fills` lines: one `[user, fill]` a line, no envelope. */
export function legacyLines(line: Envelope | string): string[] {
  const b: Envelope = typeof line === 'string' ? JSON.parse(line) : line;
  return b.events.map((e) => JSON.stringify(e));
}

/** Replaces every plain hourly file under `<dataDir>/<dir>` with its LZ4 frame `H.lz4`. */
export async function compressHourlyFiles(dataDir: string, dir: string): Promise<void> {
  const hourly = path.join(dataDir, dir, 'hourly');
  for (const day of await fs.readdir(hourly)) {
    for (const hour of await fs.readdir(path.join(hourly, day))) {
      if (hour.endsWith('.lz4')) continue;
      const file = path.join(hourly, day, hour);
      await fs.writeFile(`${file}.lz4`, compressFrameSync(await fs.readFile(file)));
      await fs.rm(file);
    }
  }
}

/**
 * Re-lays every by-block file of `stream` in another layout (`streamingLines` or `legacyLines` a line), into `to`
 * (default: the stream's `_streaming` dir), and removes the by-block dir. Returns the new dir's name.
 */
export async function relayLines(
  dataDir: string,
  stream: string,
  relay: (line: string) => string[],
  to = stream.replace(/_by_block$/, '_streaming'),
): Promise<string> {
  const from = path.join(dataDir, stream);
  for (const day of await fs.readdir(path.join(from, 'hourly'))) {
    for (const hour of await fs.readdir(path.join(from, 'hourly', day))) {
      const text = await fs.readFile(path.join(from, 'hourly', day, hour), 'utf8');
      const lines = text.split('\n').filter((l) => l !== '');
      await fs.mkdir(path.join(dataDir, to, 'hourly', day), { recursive: true });
      await fs.writeFile(path.join(dataDir, to, 'hourly', day, hour), `${lines.flatMap((l) => relay(l)).join('\n')}\n`);
    }
  }
  await fs.rm(from, { recursive: true });
  return to;
}
