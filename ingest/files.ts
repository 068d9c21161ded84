// The node's file layout: `<data dir>/<stream>/hourly/YYYYMMDD/H` (H unpadded, UTC), optionally `.lz4`, and its
// timestamp text (ISO-8601 without zone, nanoseconds). Shared by the simulator (writer) and ingest (reader).
import path from 'node:path';

/** `hourly/20261122/7` for a time in ms. */
export function hourlyKey(timeMs: number): string {
  const d = new Date(timeMs);
  const ymd = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
  return `hourly/${ymd}/${d.getUTCHours()}`;
}

export function hourlyPath(dataDir: string, stream: string, timeMs: number): string {
  return path.join(dataDir, stream, hourlyKey(timeMs));
}

/** Sort key of a file relative to its stream dir: `hourly/20261122/7[.lz4]` → 2026112207. NaN when not hourly. */
export function hourlyOrder(relative: string): number {
  const m = /^hourly\/(\d{8})\/(\d{1,2})(?:\.lz4)?$/.exec(relative);
  if (!m) return Number.NaN;
  return Number(m[1]) * 100 + Number(m[2]);
}

/** The start (epoch ms) of the hour an `hourlyOrder` numbers (YYYYMMDDH). */
export function hourOfOrder(order: number): number {
  const day = Math.floor(order / 100);
  return Date.UTC(Math.floor(day / 10_000), (Math.floor(day / 100) % 100) - 1, day % 100, order % 100);
}

/** Epoch ms → the node's `2026-01-02T03:04:05.123000000`. `extraNs` (0..999999) fills the sub-ms digits. */
export function isoNs(timeMs: number, extraNs = 0): string {
  const iso = new Date(timeMs).toISOString(); // 2026-01-02T03:04:05.123Z
  return `${iso.slice(0, 23)}${String(extraNs).padStart(6, '0')}`;
}

/** The node's ISO-ns text (no zone = UTC; `Z` tolerated) → epoch ms, truncating sub-ms digits. NaN if invalid. */
export function parseIsoNs(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z?$/.exec(text);
  if (!m) return Number.NaN;
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
}
