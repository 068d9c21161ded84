// The liquidations channel filter over liquidation rows written by ingest, and the event shape.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiquidationRow } from '../../../db/rows/accounts.ts';
import { InProcessBus } from '../../../events/bus.ts';
import { addressValue } from '../../../platform/fields.ts';
import { ledgerEvent, NodeFiles } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, hash, nodeFill, T0 } from '../../../test/node-files.ts';
import type { FillEvent } from '../../../wire/node-lines.ts';
import { LiquidationJoin, liquidationsMatching, liquidationsOf, toWsLiquidation } from './liquidations.ts';

const VICTIM = addr(0xa1);
const OTHER_VICTIM = addr(0xa2);
const LIQUIDATOR = addr(0xb2);
const BACKSTOP = addr(0xb3);
const BUILDER = addr(0xb111d);

const LEDGER_LIQUIDATION = {
  type: 'liquidation',
  liquidatedNtlPos: '1500.0',
  accountValue: '12.5',
  leverageType: 'Cross',
  liquidatedPositions: [{ coin: 'ETH', szi: '0.5' }],
};

let db: TestDatabase;
let rows: LiquidationRow[];

function liquidation(tid: number, victim: string, liquidator: string, px: string, sz: string, builder?: string) {
  const liq = { liquidatedUser: victim, markPx: px, method: 'market' as const };
  const common = { coin: 'ETH', px, sz, time: T0 + tid, hash: hash(tid), tid, liquidation: liq };
  return [
    [victim, nodeFill({ ...common, side: 'A', oid: tid * 2, dir: 'Close Long' })],
    [liquidator, nodeFill({ ...common, side: 'B', oid: tid * 2 + 1, crossed: false, ...(builder && { builder }) })],
  ] satisfies FillEvent[];
}

beforeAll(async () => {
  db = await createTestDatabase();
  const files = new NodeFiles();
  files.add('node_fills_by_block', T0 + 1, liquidation(1, VICTIM, LIQUIDATOR, '3000.0', '0.5'));
  files.add('node_fills_by_block', T0 + 2, liquidation(2, OTHER_VICTIM, BACKSTOP, '3000.0', '10.0', BUILDER));
  files.add('node_fills_by_block', T0 + 3, liquidation(3, VICTIM, BACKSTOP, '2990.0', '2.0'));
  // The ledger's update for the first liquidation (same transaction); the third has none.
  files.add('misc_events_by_block', T0 + 1, [ledgerEvent(T0 + 1, hash(1), [VICTIM], LEDGER_LIQUIDATION)]);
  await files.load(db);
  ({ rows } = await db.pool.query<LiquidationRow>(
    `SELECT block_number, time, hash, tid, coin, liquidated_user, liquidator, side, px::text AS px, sz::text AS sz,
       notional::text AS notional, mark_px::text AS mark_px, method, builder
     FROM accounts.liquidations ORDER BY time`,
  ));
});
afterAll(async () => {
  await db.drop();
});

const tids = (filter: Parameters<typeof liquidationsMatching>[0]) =>
  rows.filter(liquidationsMatching(filter)).map((r) => r.tid);

describe('liquidationsMatching', () => {
  it('matches every row without filters', () => {
    expect(tids({})).toEqual([1, 2, 3]);
  });

  it('matches user and users against the liquidated user or the liquidator', () => {
    expect(tids({ user: VICTIM })).toEqual([1, 3]);
    expect(tids({ user: addressValue(BACKSTOP.toUpperCase().replace('0X', '0x'), 'user') })).toEqual([2, 3]);
    expect(tids({ users: [OTHER_VICTIM, LIQUIDATOR] })).toEqual([1, 2]);
  });

  it('applies a minimum notional and a builder, all filters combined', () => {
    expect(tids({ amountDollars: 5980 })).toEqual([2, 3]);
    expect(tids({ amountDollars: '5980.01' })).toEqual([2]);
    expect(tids({ builder: BUILDER })).toEqual([2]);
    expect(tids({ user: BACKSTOP, amountDollars: 1000, builder: BUILDER })).toEqual([2]);
    expect(tids({ user: VICTIM, builder: BUILDER })).toEqual([]);
  });
});

describe('toWsLiquidation', () => {
  it('gives the exchange event, lid the trade id, account value "0.0" when unknown', () => {
    expect(toWsLiquidation(rows[0] as LiquidationRow)).toStrictEqual({
      lid: 1,
      liquidator: LIQUIDATOR,
      liquidated_user: VICTIM,
      liquidated_ntl_pos: '1500.00',
      liquidated_account_value: '0.0',
    });
    expect(toWsLiquidation({ ...(rows[0] as LiquidationRow), account_value: '12.5' }).liquidated_account_value).toBe(
      '12.5',
    );
  });
});

describe('liquidationsOf', () => {
  it("gives the liquidated account's value from the ledger update of the same transaction, null without one", async () => {
    const mine = await liquidationsOf(db.pool, VICTIM, 10);
    expect(mine.map((r) => [r.tid, r.account_value])).toEqual([
      [3, null],
      [1, '12.5'],
    ]);
    expect(toWsLiquidation(mine[1] as LiquidationRow).liquidated_account_value).toBe('12.5');
  });
});

describe('LiquidationJoin', () => {
  const ledgerRow = (row: LiquidationRow, accountValue: string) => ({
    block_number: row.block_number,
    time: row.time,
    hash: row.hash,
    address: row.liquidated_user,
    delta_type: 'liquidation',
    delta: { ...LEDGER_LIQUIDATION, accountValue },
  });

  function join(graceMs: number) {
    const source = new InProcessBus();
    const out: [number, string | null | undefined][] = [];
    const j = new LiquidationJoin(
      source,
      (rows) => out.push(...rows.map((r): [number, string | null | undefined] => [r.tid, r.account_value])),
      graceMs,
    );
    return { source, out, stop: () => j.stop() };
  }
  it('joins a fill with its ledger update, whichever comes first', () => {
    const { source, out, stop } = join(60_000);
    const [a, b] = rows as [LiquidationRow, LiquidationRow];
    source.publish('ledgerUpdates', [ledgerRow(a, '1.0')]);
    source.publish('liquidations', [a]);
    expect(out).toEqual([[1, '1.0']]);
    source.publish('liquidations', [b]);
    expect(out).toHaveLength(1);
    source.publish('ledgerUpdates', [ledgerRow(b, '2.0')]);
    expect(out).toEqual([
      [1, '1.0'],
      [2, '2.0'],
    ]);
    stop();
  });

  it('lets a fill go without its update after the grace, and keeps the order of fills', async () => {
    const { source, out, stop } = join(50);
    const [a, b] = rows as [LiquidationRow, LiquidationRow];
    source.publish('ledgerUpdates', [ledgerRow(b, '2.0')]);
    source.publish('liquidations', [a, b]);
    expect(out).toEqual([]);
    await new Promise((r) => setTimeout(r, 120));
    expect(out).toEqual([
      [1, null],
      [2, '2.0'],
    ]);
    stop();
  });

  it('forgets an update after a minute without its fill', () => {
    let clock = 0;
    const source = new InProcessBus();
    const out: (string | null | undefined)[] = [];
    const j = new LiquidationJoin(
      source,
      (rows) => out.push(...rows.map((r) => r.account_value)),
      0,
      () => clock,
    );
    const [a, b] = rows as [LiquidationRow, LiquidationRow];
    source.publish('ledgerUpdates', [ledgerRow(a, '1.0')]);
    clock = 61_000;
    source.publish('ledgerUpdates', [ledgerRow(b, '2.0')]);
    source.publish('liquidations', [a, b]);
    expect(out).toEqual([null, '2.0']);
    j.stop();
  });
});
