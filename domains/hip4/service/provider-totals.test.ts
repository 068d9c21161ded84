// The live provider totals: loaded from Postgres, then fed by published fills; a fill that comes before its
// outcome's registration (ingest reads the registry and the fills as separate streams) counts once it is registered,
// and fills of blocks the loaded snapshot holds are not counted twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hip4FillRow } from '../../../db/rows/hip4.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { ProviderTotals } from './provider-totals.ts';
import type { OutcomeIndexEntry } from './registry.ts';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db?.drop();
});

const fill = (over: Partial<Hip4FillRow>): Hip4FillRow => ({
  block_number: 10,
  time: 1000,
  address: '0x00000000000000000000000000000000000000a1',
  coin: '#70',
  outcome_id: 7,
  side_index: 0,
  px: '0.5',
  sz: '10',
  side: 'B',
  dir: 'Buy',
  closed_pnl: '0',
  hash: `0x${'0'.repeat(64)}`,
  oid: 1,
  tid: 1,
  fee: '0.01',
  fee_token: 'USDH',
  crossed: true,
  is_settlement: false,
  ...over,
});

describe('ProviderTotals', () => {
  it('counts a fill once its outcome is registered, skips settlement fills, sums exactly', async () => {
    const index = new Map<number, OutcomeIndexEntry>();
    const totals = new ProviderTotals((id) => index.get(id));
    // Published before the load finished: held, then applied.
    totals.add([fill({ tid: 1 })]);
    await totals.load(db.pool);
    totals.add([
      fill({ tid: 1, address: '0x00000000000000000000000000000000000000a2', side: 'A', crossed: false, fee: '0.02' }),
      fill({ tid: 2, is_settlement: true, dir: 'Settlement' }),
    ]);
    expect(totals.rows()).toEqual([]);
    index.set(7, { questionId: null, venue: 'predict' });
    totals.registered(7);
    expect(totals.rows()).toEqual([
      {
        venue: 'predict',
        markets_traded: 1,
        fills: 2,
        volume_usdc: '5.0',
        unique_users: 2,
        fees: '0.03',
        last_trade: 1000,
      },
    ]);
    expect(totals.rows('oracle')).toEqual([]);
  });

  it('does not count again a published fill of a block the loaded snapshot holds', async () => {
    await db.pool.query(
      `INSERT INTO hip4.outcomes (outcome_id, name, description, side_specs, quote_token, block_time)
       VALUES (8, 'x', '', '[]', 'USDH', 0)`,
    );
    await db.pool.query(
      `INSERT INTO hip4.fills (block_number, time, address, coin, outcome_id, side_index, px, sz, side, dir,
         closed_pnl, hash, oid, tid, fee, fee_token, crossed)
       VALUES (20, 2000, '0x00000000000000000000000000000000000000a3', '#80', 8, 0, 0.25, 4, 'B', 'Buy', 0, '0x', 1, 5,
         0.001, 'USDH', true)`,
    );
    const index = new Map<number, OutcomeIndexEntry>([[8, { questionId: null, venue: '' }]]);
    const totals = new ProviderTotals((id) => index.get(id));
    await totals.load(db.pool);
    totals.add([
      fill({ block_number: 20, outcome_id: 8, coin: '#80', tid: 5 }),
      fill({ block_number: 21, outcome_id: 8, coin: '#80', tid: 6 }),
    ]);
    expect(totals.rows()).toEqual([
      {
        venue: 'oracle',
        markets_traded: 1,
        fills: 2,
        volume_usdc: '6.0',
        unique_users: 2,
        fees: '0.011',
        last_trade: 2000,
      },
    ]);
  });
});
