// Hand-written hl-node files for tests: block lines in the node's envelope, appended to hourly files.

import fs from 'node:fs/promises';
import path from 'node:path';
import type { WireTrade } from '../domains/markets/service/market-data.ts';
import { hourlyPath, isoNs } from '../ingest/files.ts';
import type { Address } from '../platform/fields.ts';
import type { BlockLine, NodeFill, NodeOrder, StreamName } from '../wire/node-lines.ts';

export const T0 = Date.UTC(2026, 10, 22, 7, 0, 0); // 2026-11-22 07:00 UTC

export function addr(n: number): Address {
  return `0x${n.toString(16).padStart(40, '0')}` as Address;
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

/** Writes `hours` hourly files of `blocksPerHour` blocks with `fillsPerBlock` matched fills each (half that many
 * trades); returns how many fills were written. Fast enough for tens of thousands of rows. */
export async function writeSyntheticFills(
  dataDir: string,
  opts: { hours: number; blocksPerHour: number; fillsPerBlock: number; start?: number; firstBlock?: number },
): Promise<number> {
  const start = opts.start ?? T0;
  let blockNumber = opts.firstBlock ?? 1;
  let tid = 1;
  let written = 0;
  for (let h = 0; h < opts.hours; h++) {
    const lines: string[] = [];
    const hourStart = start + h * 3_600_000;
    for (let b = 0; b < opts.blocksPerHour; b++) {
      const time = hourStart + Math.floor((b * 3_600_000) / opts.blocksPerHour);
      const events: [string, Record<string, unknown>][] = [];
      for (let i = 0; i < opts.fillsPerBlock; i += 2, tid++) {
        const px = `${90000 + (tid % 500)}.5`;
        const common = { coin: 'BTC', px, sz: '0.01', time, hash: hash(tid), tid, feeToken: 'USDC', closedPnl: '0.0' };
        events.push([
          addr(1 + (tid % 300)),
          {
            ...common,
            side: 'B',
            startPosition: '0.0',
            dir: 'Open Long',
            oid: tid * 2,
            crossed: true,
            fee: '0.4',
            cloid: null,
            twapId: null,
          },
        ]);
        events.push([
          addr(301 + (tid % 300)),
          {
            ...common,
            side: 'A',
            startPosition: '0.0',
            dir: 'Open Short',
            oid: tid * 2 + 1,
            crossed: false,
            fee: '-0.01',
            twapId: null,
          },
        ]);
      }
      written += events.length;
      lines.push(JSON.stringify(block(blockNumber++, time, events)));
    }
    await appendRaw(dataDir, 'node_fills_by_block', hourStart, lines);
  }
  return written;
}

/** A node fill with plain defaults (a BTC buy opening a long), overridden field by field. */
export function nodeFill(over: Partial<NodeFill>): NodeFill {
  return {
    coin: 'BTC',
    px: '90000.0',
    sz: '0.1',
    side: 'B',
    time: T0,
    startPosition: '0.0',
    dir: 'Open Long',
    closedPnl: '0.0',
    hash: hash(1),
    oid: 1,
    crossed: true,
    fee: '0.0',
    tid: 1,
    feeToken: 'USDC',
    cloid: null,
    twapId: null,
    ...over,
  };
}

/** A node order with plain defaults (a resting BTC Gtc limit buy), overridden field by field. */
export function nodeOrder(over: Partial<NodeOrder>): NodeOrder {
  return {
    coin: 'BTC',
    side: 'B',
    limitPx: '90000.0',
    sz: '1.0',
    oid: 1,
    timestamp: T0,
    triggerCondition: 'N/A',
    isTrigger: false,
    triggerPx: '0.0',
    children: [],
    isPositionTpsl: false,
    reduceOnly: false,
    orderType: 'Limit',
    origSz: '1.0',
    tif: 'Gtc',
    cloid: null,
    ...over,
  };
}

/** A live trade as the markets service publishes it, for tests that put trades on its live bus directly. */
export function wireTrade(coin: string, tid: number): WireTrade {
  return {
    coin,
    side: 'B',
    px: '1.5',
    sz: '2',
    time: Date.now(),
    hash: `0x${'ab'.repeat(32)}`,
    tid,
    users: ['0x56fb916e2767e1048b78e3c76532b8b104febc76', '0x7f34dc766b0ea373eefd9a03beb46df2898d88d4'],
  };
}
