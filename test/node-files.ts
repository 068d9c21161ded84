// Hand-written hl-node files for tests: block lines in the node's envelope, appended to hourly files.
import fs from 'node:fs/promises';
import path from 'node:path';
import { hourlyPath, isoNs } from '../ingest/files.ts';
import type { BlockLine, StreamName } from '../ingest/formats/types.ts';

export const T0 = Date.UTC(2026, 10, 22, 7, 0, 0); // 2026-11-22 07:00 UTC
export const ZERO_HASH = `0x${'0'.repeat(64)}`;

export function addr(n: number): string {
  return `0x${n.toString(16).padStart(40, '0')}`;
}

export function hash(n: number): string {
  return `0x${n.toString(16).padStart(64, '0')}`;
}

export function block<E>(blockNumber: number, timeMs: number, events: E[]): BlockLine<E> {
  return { local_time: isoNs(timeMs + 20), block_time: isoNs(timeMs), block_number: blockNumber, events };
}

/** Appends raw lines (already serialized, newline added) to the hourly file of `timeMs`. */
export async function appendRaw(dataDir: string, stream: StreamName, timeMs: number, lines: string[]): Promise<string> {
  const file = hourlyPath(dataDir, stream, timeMs);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.appendFile(file, lines.map((l) => `${l}\n`).join(''));
  return file;
}

export async function appendBlocks<E>(dataDir: string, stream: StreamName, blocks: BlockLine<E>[]): Promise<void> {
  for (const b of blocks) {
    const ms = Date.parse(`${b.block_time.slice(0, 23)}Z`);
    await appendRaw(dataDir, stream, ms, [JSON.stringify(b)]);
  }
}

export async function tempDataDir(): Promise<string> {
  const os = await import('node:os');
  return fs.mkdtemp(path.join(os.tmpdir(), 'hl-data-'));
}
