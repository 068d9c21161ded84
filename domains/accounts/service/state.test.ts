// accountState on a hand-made history: average-cost entries (with a reduction, a flip and fills sharing a
// timestamp), cash from ledger + realized PnL − fees + funding, spot and HIP-3 excluded, the empty account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '../../../events/bus.ts';
import { isoNs } from '../../../ingest/files.ts';
import { Upstream } from '../../../platform/upstream.ts';
import { ledgerEvent, NodeFiles } from '../../../test/accounts-files.ts';
import { createTestDatabase, type TestDatabase } from '../../../test/db.ts';
import { addr, hash, nodeFill, T0 } from '../../../test/node-files.ts';
import type { FillEvent, MiscEvent } from '../../../wire/node-lines.ts';
import { ZERO_HASH } from '../../../wire/node-lines.ts';
import { AccountsService } from './index.ts';
import { accountState, type Leverage } from './state.ts';

const ALICE = addr(0xa1);
const BOB = addr(0xb2);
const DAVE = addr(0xd4);
const MIN = 60_000;
const NOW = T0 + 3_600_000;
const at = (m: number) => T0 + m * MIN;

let db: TestDatabase;
let tid = 1;

function fills(time: number, ...over: Parameters<typeof nodeFill>[0][]): FillEvent[] {
  return over.map((o) => [ALICE, nodeFill({ time, tid: tid++, hash: hash(tid), oid: tid, ...o })]);
}

function funding(time: number, coin: string, amount: string, szi: string): MiscEvent {
  return {
    time: isoNs(time),
    hash: ZERO_HASH,
    inner: { Funding: { deltas: [{ user: ALICE, coin, funding_amount: amount, szi, funding_rate: '0.00001' }] } },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  const f = new NodeFiles();
  const F = 'node_fills_by_block';
  // BTC: +0.1 @ 90000, +0.1 @ 91000 (avg 90500), −0.1 @ 92000 (avg stays), then +0.1 @ 93000 in two fills
  // sharing one timestamp, listed out of execution order → 0.2 at (9050 + 9300) / 0.2 = 91750.
  f.add(F, at(1), fills(at(1), { px: '90000.0', sz: '0.1', fee: '0.5' }));
  f.add(F, at(2), fills(at(2), { px: '91000.0', sz: '0.1', startPosition: '0.1', fee: '0.5' }));
  f.add(
    F,
    at(3),
    fills(at(3), {
      px: '92000.0',
      sz: '0.1',
      side: 'A',
      startPosition: '0.2',
      dir: 'Close Long',
      closedPnl: '150.0',
      fee: '0.5',
    }),
  );
  f.add(
    F,
    at(4),
    fills(
      at(4),
      { px: '93000.0', sz: '0.05', startPosition: '0.15', fee: '0.25' },
      { px: '93000.0', sz: '0.05', startPosition: '0.1', fee: '0.25' },
    ),
  );
  // ETH: short 2.0 @ 3000.
  f.add(F, at(5), fills(at(5), { coin: 'ETH', px: '3000.0', sz: '2.0', side: 'A', dir: 'Open Short', fee: '1.0' }));
  // SOL: opened and closed (realized +100).
  f.add(F, at(6), fills(at(6), { coin: 'SOL', px: '100.0', sz: '10.0', fee: '0.1' }));
  f.add(
    F,
    at(7),
    fills(at(7), {
      coin: 'SOL',
      px: '110.0',
      sz: '10.0',
      side: 'A',
      startPosition: '10.0',
      dir: 'Close Long',
      closedPnl: '100.0',
      fee: '0.1',
    }),
  );
  // AVAX: short 1.0 @ 20, then flipped long by a buy of 3.0 @ 21 → long 2.0 entered at 21.
  f.add(F, at(8), fills(at(8), { coin: 'AVAX', px: '20.0', sz: '1.0', side: 'A', dir: 'Open Short' }));
  f.add(
    F,
    at(9),
    fills(at(9), {
      coin: 'AVAX',
      px: '21.0',
      sz: '3.0',
      startPosition: '-1.0',
      dir: 'Short > Long',
      closedPnl: '-1.0',
    }),
  );
  // Not the perp account: spot pair, spot index, HIP-3 dex.
  f.add(
    F,
    at(10),
    fills(
      at(10),
      { coin: 'PURR/USDC', px: '0.2', sz: '100.0', fee: '5.0', closedPnl: '7.0' },
      { coin: '@107', px: '40.0', sz: '1.0', fee: '5.0' },
      { coin: 'xyz:XYZ100', px: '100.0', sz: '1.0', fee: '5.0' },
    ),
  );
  f.add('misc_events_by_block', at(0), [ledgerEvent(at(0), hash(0x100), [ALICE], { type: 'deposit', usdc: '1000.0' })]);
  f.add('misc_events_by_block', at(11), [
    ledgerEvent(at(11), hash(0x101), [ALICE], { type: 'withdraw', usdc: '100.0', nonce: 1, fee: '1.0' }),
    ledgerEvent(at(11), hash(0x102), [ALICE, BOB], {
      type: 'send',
      user: ALICE,
      destination: BOB,
      sourceDex: '',
      destinationDex: '',
      token: 'USDC',
      amount: '50.0',
      usdcValue: '50.0',
      fee: '0.0',
      nativeTokenFee: '0.0',
      nonce: 2,
      feeToken: '',
    }),
    ledgerEvent(at(11), hash(0x103), [ALICE], { type: 'accountClassTransfer', usdc: '25.0', toPerp: false }),
  ]);
  f.add('misc_events_by_block', at(30), [
    funding(at(30), 'BTC', '-1.5', '0.2'),
    funding(at(30), 'ETH', '2.5', '-2.0'),
    funding(at(30), 'xyz:XYZ100', '-9.0', '1.0'),
  ]);
  f.add('misc_events_by_block', at(6) + 1, [funding(at(6) + 1, 'SOL', '-0.2', '10.0')]);
  await f.load(db);
});
afterAll(async () => {
  await db.drop();
});

const MARKS: Record<string, string> = { BTC: '95000.0', ETH: '2900.0', AVAX: '22.0' };
const LEVERAGE: Record<string, Leverage> = { BTC: { type: 'cross', value: 10 }, ETH: { type: 'isolated', value: 3 } };

describe('accountState', () => {
  it('values the perp account from stored history and marks', async () => {
    const state = await accountState(db.pool, {
      user: ALICE,
      markPx: (c) => MARKS[c] ?? null,
      leverage: new Map(Object.entries(LEVERAGE)),
      now: NOW,
    });
    // roe = unrealized PnL × leverage / entry notional; AVAX's leverage is not known.
    // cash = ledger (1000 − 100 − 50 − 25) + closedPnl (150 + 100 − 1) − fees (2.0 + 1.0 + 0.2) + funding (0.8)
    expect(state).toStrictEqual({
      user: ALICE,
      as_of: '2026-11-22T08:00:00.000',
      account_value: '1923.6',
      cash: '1071.6',
      position_value: '24844.0',
      unrealized_pnl: '852.0',
      account_leverage: '12.915367',
      n_positions: 3,
      perp_account_empty: false,
      positions: [
        {
          coin: 'AVAX',
          szi: '2.0',
          side: 'long',
          leverage: null,
          leverage_type: null,
          entry_px: '21.0',
          mark_px: '22.0',
          position_value: '44.0',
          unrealized_pnl: '2.0',
          roe: null,
          funding: '0.0',
          opened_at: '2026-11-22T07:09:00.000',
        },
        {
          coin: 'BTC',
          szi: '0.2',
          side: 'long',
          leverage: 10,
          leverage_type: 'cross',
          entry_px: '91750.0',
          mark_px: '95000.0',
          position_value: '19000.0',
          unrealized_pnl: '650.0',
          roe: '0.354223',
          funding: '-1.5',
          opened_at: '2026-11-22T07:01:00.000',
        },
        {
          coin: 'ETH',
          szi: '-2.0',
          side: 'short',
          leverage: 3,
          leverage_type: 'isolated',
          entry_px: '3000.0',
          mark_px: '2900.0',
          position_value: '5800.0',
          unrealized_pnl: '200.0',
          roe: '0.1',
          funding: '2.5',
          opened_at: '2026-11-22T07:05:00.000',
        },
      ],
    });
  });

  it('falls back to the last fill price without a mark', async () => {
    const state = await accountState(db.pool, { user: ALICE, markPx: () => null, now: NOW });
    expect(state.positions.map((p) => [p.coin, p.mark_px, p.unrealized_pnl])).toEqual([
      ['AVAX', '21.0', '0.0'],
      ['BTC', '93000.0', '250.0'],
      ['ETH', '3000.0', '0.0'],
    ]);
  });

  it('is served without leverage, and soon, when the node does not answer', async () => {
    const accounts = new AccountsService({
      pool: db.pool,
      // A node that never answers: only the request's own timeout ends the wait.
      upstream: new Upstream('http://127.0.0.1:9', {
        fetch: (_url, init) =>
          new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason))),
      }),
      bus: new InProcessBus(),
      markPx: (c) => MARKS[c] ?? null,
      now: () => NOW,
    });
    const started = Date.now();
    const state = await accounts.accountState(ALICE);
    accounts.stop();
    expect(Date.now() - started).toBeLessThan(3000);
    expect(state.positions.map((p) => [p.coin, p.leverage, p.leverage_type, p.roe])).toEqual([
      ['AVAX', null, null, null],
      ['BTC', null, null, null],
      ['ETH', null, null, null],
    ]);
    expect(state.account_value).toBe('1923.6');
  });

  it('counts a received send as cash', async () => {
    const state = await accountState(db.pool, { user: BOB, markPx: () => null, now: NOW });
    expect(state).toMatchObject({ cash: '50.0', account_value: '50.0', n_positions: 0, perp_account_empty: false });
    expect(state.account_leverage).toBe('0.0');
  });

  it('reports an empty perp account', async () => {
    expect(await accountState(db.pool, { user: DAVE, markPx: () => null, now: NOW })).toStrictEqual({
      user: DAVE,
      as_of: '2026-11-22T08:00:00.000',
      account_value: '0',
      cash: '0',
      position_value: '0',
      unrealized_pnl: '0',
      account_leverage: null,
      n_positions: 0,
      perp_account_empty: true,
      positions: [],
    });
  });
});
