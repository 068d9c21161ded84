// The mainnet profile's shape (profile.ts, README "The mainnet profile"): blocks ~74 ms apart each a line of every
// node stream, empty blocks, the makers', HIP-3, cloid, builder and TWAP shares of fills, the 00:00 UTC dust block,
// order statuses at their rate, a cascade minute when asked; and ingest loads what it writes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../test/db.ts';
import type { BlockLine, FillEvent, StreamName } from '../../wire/node-lines.ts';
import { Ingest } from '../pipeline.ts';
import { NODE_STREAMS, Simulator } from './index.ts';
import { MAINNET } from './profile.ts';
import { listHourlyFiles } from './writer.ts';

const MIDNIGHT = Date.UTC(2026, 10, 21);
const MINUTE = 60_000;
const FROM = MIDNIGHT - 3 * MINUTE;
const CASCADE = MIDNIGHT + 4 * MINUTE;
const UNTIL = MIDNIGHT + 6 * MINUTE;

const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'hl-sim-mainnet-'));
afterAll(() => fs.rmSync(tmpRoot, { recursive: true, force: true }));

function lines(dir: string, stream: StreamName): string[] {
  return listHourlyFiles(path.join(dir, stream)).flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .filter((l) => l !== ''),
  );
}

const blocks = <E>(dir: string, stream: StreamName) => lines(dir, stream).map((l) => JSON.parse(l) as BlockLine<E>);
/** Block numbers of a stream's lines, unparsed (the statuses are most of the bytes). */
const blockNumbers = (dir: string, stream: StreamName) =>
  lines(dir, stream).map((l) => Number(/"block_number":(\d+)/.exec(l)![1]));
/** Order statuses are a tenth of mainnet's here: the rate is a parameter, and a test reads them all. */
const STATUSES_PER_SECOND = 300;

const timeOf = (b: BlockLine<unknown>) => Date.parse(`${b.block_time}Z`);

describe('mainnet profile', () => {
  let dir: string;
  let sim: Simulator;
  let fills: BlockLine<FillEvent>[];
  beforeAll(async () => {
    dir = path.join(tmpRoot, 'shape');
    sim = new Simulator({
      dataDir: dir,
      seed: 42,
      profile: 'mainnet',
      cascades: [CASCADE],
      orderStatusesPerSecond: STATUSES_PER_SECOND,
    });
    await sim.writeHistory(FROM, UNTIL);
    await sim.stop();
    fills = blocks<FillEvent>(dir, 'node_fills_by_block');
  }, 120_000);

  it('writes a block every ~74 ms, each a line of every node stream, many of them without a fill', () => {
    const intervals = fills.slice(1).map((b, i) => timeOf(b) - timeOf(fills[i]!));
    const mean = intervals.reduce((a, b) => a + b, 0) / intervals.length;
    expect(mean).toBeGreaterThan(70);
    expect(mean).toBeLessThan(80);
    const numbers = fills.map((b) => b.block_number);
    expect(numbers.every((n, i) => i === 0 || n === numbers[i - 1]! + 1)).toBe(true);
    for (const stream of NODE_STREAMS) {
      expect(blockNumbers(dir, stream), stream).toEqual(numbers);
    }
    const empty = fills.filter((b) => b.events.length === 0).length / fills.length;
    expect(empty).toBeGreaterThan(0.3);
  });

  it('gives makers about half the fills, HIP-3 a quarter, and cloids, builders and TWAPs their mainnet shares', () => {
    // Outside the dust block and the cascade minute, which have shapes of their own.
    const ordinary = fills
      .filter((b) => timeOf(b) > MIDNIGHT + 1000 && (timeOf(b) < CASCADE || timeOf(b) >= CASCADE + MINUTE))
      .flatMap((b) => b.events);
    const makers = new Set(sim.exchange.makers.map((a) => a.address));
    const share = (test: (e: FillEvent) => boolean) => ordinary.filter(test).length / ordinary.length;
    const perSecond = ordinary.length / ((UNTIL - FROM - MINUTE) / 1000);
    expect(perSecond).toBeGreaterThan(MAINNET.fillsPerSecond * 0.5);
    expect(perSecond).toBeLessThan(MAINNET.fillsPerSecond * 1.6);
    expect(share(([user]) => makers.has(user))).toBeGreaterThan(0.4);
    expect(share(([user]) => makers.has(user))).toBeLessThan(0.6);
    expect(share(([, f]) => f.coin.includes(':'))).toBeGreaterThan(0.18);
    expect(share(([, f]) => f.coin.includes(':'))).toBeLessThan(0.33);
    expect(share(([, f]) => typeof f.cloid === 'string')).toBeGreaterThan(0.43);
    expect(share(([, f]) => typeof f.cloid === 'string')).toBeLessThan(0.6);
    expect(share(([, f]) => f.builder !== undefined)).toBeGreaterThan(0.04);
    expect(share(([, f]) => f.builder !== undefined)).toBeLessThan(0.1);
    expect(share(([, f]) => f.twapId !== null && f.twapId !== undefined)).toBeGreaterThan(0.05);
    expect(share(([, f]) => f.twapId !== null && f.twapId !== undefined)).toBeLessThan(0.13);
    const coins = new Set(ordinary.map(([, f]) => f.coin));
    expect([...coins].filter((c) => c.startsWith('@')).length).toBeGreaterThan(20);
    expect(new Set([...coins].filter((c) => c.includes(':')).map((c) => c.split(':')[0])).size).toBe(6);
    expect(sim.exchange.perps.filter((m) => m.dex === '').length).toBe(MAINNET.perps);
    expect(sim.exchange.spotMarkets.length).toBe(MAINNET.spotPairs);
  });

  it('converts the spot dust in the first block of the UTC day', () => {
    const first = fills.find((b) => timeOf(b) >= MIDNIGHT)!;
    const dust = first.events.filter(([, f]) => f.dir === 'Spot Dust Conversion');
    expect(dust.length).toBeGreaterThan(1000);
    expect(first.events.length).toBeLessThan(1600);
    expect(dust.every(([, f]) => f.tid === 0 && f.side === 'A' && f.fee === '0.0' && /^0x0+$/.test(f.hash))).toBe(true);
    const elsewhere = fills.filter((b) => b !== first).flatMap((b) => b.events);
    expect(elsewhere.some(([, f]) => f.dir === 'Spot Dust Conversion')).toBe(false);
  });

  it('runs a cascade minute at 1.5–4 k fills a second, with liquidations', () => {
    const minute = fills.filter((b) => timeOf(b) >= CASCADE && timeOf(b) < CASCADE + MINUTE).flatMap((b) => b.events);
    expect(minute.length / 60).toBeGreaterThan(1500);
    expect(minute.length / 60).toBeLessThan(4000);
    expect(minute.filter(([, f]) => f.liquidation).length).toBeGreaterThan(100);
    const after = fills.filter((b) => timeOf(b) >= CASCADE + MINUTE).flatMap((b) => b.events);
    expect(after.length / ((UNTIL - CASCADE - MINUTE) / 1000)).toBeLessThan(MAINNET.fillsPerSecond * 2);
  });

  it('writes order statuses at the set rate', () => {
    // Outside the cascade minute, whose liquidations and panic orders write far more.
    const statuses = lines(dir, 'node_order_statuses_by_block')
      .filter((l) => {
        const at = Date.parse(`${/"block_time":"([^"]+)"/.exec(l)![1]}Z`);
        return at < CASCADE || at >= CASCADE + MINUTE;
      })
      .reduce((n, l) => n + (l.match(/,"status":"/g)?.length ?? 0), 0);
    const perSecond = statuses / ((UNTIL - FROM - MINUTE) / 1000);
    expect(perSecond).toBeGreaterThan(STATUSES_PER_SECOND * 0.9);
    expect(perSecond).toBeLessThan(STATUSES_PER_SECOND * 1.3);
  });
});

describe('mainnet profile through ingest', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it(
    'loads a window with the dust block and empty blocks, every stream without a malformed line',
    {
      timeout: 180_000,
    },
    async () => {
      const dataDir = path.join(tmpRoot, 'ingest');
      const sim = new Simulator({ dataDir, seed: 7, profile: 'mainnet', orderStatusesPerSecond: 200 });
      const stats = await sim.writeHistory(MIDNIGHT - MINUTE, MIDNIGHT + MINUTE);
      await sim.stop();
      const ingest = new Ingest({ dataDir, pool: db.pool, log: () => {} });
      await ingest.run();
      for (const s of ingest.stats) expect(s.malformed, s.stream).toBe(0);
      const { rows } = await db.pool.query(`SELECT
      (SELECT count(*)::int FROM accounts.fills) AS fills,
      (SELECT count(*)::int FROM accounts.fills WHERE dir = 'Spot Dust Conversion') AS dust,
      (SELECT count(*)::int FROM accounts.order_statuses) AS statuses`);
      expect(rows[0].fills).toBe(stats.fills);
      expect(rows[0].dust).toBeGreaterThan(1000);
      expect(rows[0].statuses).toBe(stats.orderStatuses);
    },
  );
});
