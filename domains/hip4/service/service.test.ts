// Hip4Service rules not seen through a route: a user's positions (net of fills, closed by settlement), the deployer
// registry read at most every 10 s, and the live fill stream's question and venue filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hip4FillRow } from '../../../db/rows/hip4.ts';
import { InProcessBus } from '../../../events/bus.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { A1, A2, hip4History } from '../../../test/hip4-files.ts';
import { Hip4Service } from './index.ts';
import { DEPLOYERS } from './inputs.ts';
import { DEPLOYERS_REFRESH_MS } from './limits.ts';

let db: TestDatabase;
let hip4: Hip4Service;
const bus = new InProcessBus();
let now = Date.UTC(2026, 10, 25);

beforeAll(async () => {
  db = await createTestDatabase();
  await hip4History().load(db);
  hip4 = new Hip4Service({ pool: db.pool, bus, now: () => now });
  await hip4.start();
}, 60_000);
afterAll(async () => {
  hip4?.stop();
  await db?.drop();
});

describe('Hip4Service', () => {
  it("nets a user's fills per side; a settled holding is closed by its settlement fill", async () => {
    // A1 bought 100 #100 (settled: sold back at 1), sold 10 #200 as maker, bought 20 #300.
    expect((await hip4.positions(A1.toUpperCase().replace('0X', '0x'))).map((p) => [p.coin, p.size, p.cost])).toEqual([
      ['#200', '-10.0', '-5.00'],
      ['#300', '20.0', '5.000'],
    ]);
    // A2's short #100 was bought back at settlement; its #201 sale stands.
    expect((await hip4.positions(A2)).map((p) => [p.coin, p.size])).toEqual([['#201', '-50.0']]);
  });

  it('reads the deployer registry again only after DEPLOYERS_REFRESH_MS', async () => {
    expect((await hip4.deployers(DEPLOYERS.parse({}))).map((d) => d.venue)).toEqual(['oddsx', 'predict']);
    await db.pool.query(
      `INSERT INTO hip4.venues (venue, deployer, fee_scale, updated_at) VALUES ('newvenue', $1, 1, 0)`,
      [A1],
    );
    now += DEPLOYERS_REFRESH_MS - 1;
    expect((await hip4.deployers(DEPLOYERS.parse({}))).map((d) => d.venue)).toEqual(['oddsx', 'predict']);
    now += 1;
    expect((await hip4.deployers(DEPLOYERS.parse({}))).map((d) => d.venue)).toEqual(['newvenue', 'oddsx', 'predict']);
  });

  it('filters live fills by question and by venue through the outcome index', () => {
    const got: Record<string, string[]> = { q2: [], oddsx: [], oracle: [] };
    const stops = [
      hip4.streams.fills({ questionId: 2 }).subscribe((b) => got.q2?.push(...b.map((f) => f.coin))),
      hip4.streams.fills({ venue: 'oddsx' }).subscribe((b) => got.oddsx?.push(...b.map((f) => f.coin))),
      hip4.streams.fills({ venue: 'oracle' }).subscribe((b) => got.oracle?.push(...b.map((f) => f.coin))),
    ];
    const fill = (outcome: number) => ({ outcome_id: outcome, coin: `#${10 * outcome}` }) as Hip4FillRow;
    bus.publish('hip4Fills', [fill(10), fill(20), fill(30), fill(21)]);
    for (const stop of stops) stop();
    // At most one filter: FILL_STREAM's rule (inputs.test.ts), read before the stream is asked.
    expect(got).toEqual({ q2: ['#200', '#210'], oddsx: ['#300'], oracle: ['#100'] });
  });
});
