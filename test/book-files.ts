// The node streams a book follower reads (raw book diffs, order statuses), read back from a data dir's hourly files
// as ingest parses them: every block's rows by block number.
import fs from 'node:fs';
import path from 'node:path';
import type { StreamName } from '../wire/node-lines.ts';

export function readNodeBlocks<R>(
  dataDir: string,
  stream: StreamName,
  parse: (event: unknown, blockNumber: number, time: number) => R,
): Map<number, R[]> {
  const byBlock = new Map<number, R[]>();
  const dir = path.join(dataDir, stream, 'hourly');
  for (const day of fs.readdirSync(dir).sort()) {
    const hours = fs.readdirSync(path.join(dir, day)).sort((a, b) => Number(a) - Number(b));
    for (const hour of hours) {
      for (const line of fs.readFileSync(path.join(dir, day, hour), 'utf8').split('\n')) {
        if (!line) continue;
        const block = JSON.parse(line) as { block_number: number; block_time: string; events: unknown[] };
        const time = Date.parse(`${block.block_time.slice(0, 23)}Z`);
        const rows = block.events.map((e) => parse(e, block.block_number, time));
        byBlock.set(block.block_number, [...(byBlock.get(block.block_number) ?? []), ...rows]);
      }
    }
  }
  return byBlock;
}
