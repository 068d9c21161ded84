// A hand-written account history for the analytics tests (not the simulator): over three UTC days, ALICE closes a
// long in profit, a short at a loss, flips a long into a short in one fill, keeps two positions open, receives and
// pays funding and pays fees; BOB closes one long in profit. Loaded as node files through the real ingest.
// The expected numbers the tests check are worked out by hand in the comments.
import { isoNs } from '../ingest/files.ts';
import type { FillEvent, MiscEvent } from '../wire/node-lines.ts';
import { ZERO_HASH } from '../wire/node-lines.ts';
import { NodeFiles } from './accounts-files.ts';
import type { TestDatabase } from './db.ts';
import { addr, hash, nodeFill } from './node-files.ts';

export const ALICE = addr(0xa11ce);
export const BOB = addr(0xb0b);
/** A builder that routed some of ALICE's fills, and another that routed BOB's. */
export const BUILDER = addr(0xb111d);
export const OTHER_BUILDER = addr(0x07e4);
export const H = 3_600_000;
/** 2026-11-20 00:00 UTC: the first of the three days. */
export const D1 = Date.UTC(2026, 10, 20);
export const D2 = D1 + 24 * H;
export const D3 = D2 + 24 * H;
/** Where the tests derive up to: D3 12:00, every hour with an event closed. */
export const UNTIL = D3 + 12 * H;

/** A fill of a hand-written history. */
export interface F {
  user: string;
  t: number;
  coin: string;
  side: 'A' | 'B';
  px: string;
  sz: string;
  start: string;
  pnl?: string;
  fee: string;
  builder?: string;
}

let tid = 100;
const FILLS: F[] = [
  // D1: ALICE's BTC long, 1 @ 100 → 1 @ 120: pnl 20, fees 1 + 1.2, funding +2 received → net 19.8 (a win).
  { user: ALICE, t: D1 + 1 * H, coin: 'BTC', side: 'B', px: '100', sz: '1', start: '0', fee: '1', builder: BUILDER },
  { user: ALICE, t: D1 + 3 * H, coin: 'BTC', side: 'A', px: '120', sz: '1', start: '1', pnl: '20', fee: '1.2' },
  // D1: BOB's ETH long, 10 @ 40 → 10 @ 45: pnl 50, fees 0.85 → net 49.15.
  {
    user: BOB,
    t: D1 + 1.5 * H,
    coin: 'ETH',
    side: 'B',
    px: '40',
    sz: '10',
    start: '0',
    fee: '0.4',
    builder: OTHER_BUILDER,
  },
  { user: BOB, t: D1 + 5 * H, coin: 'ETH', side: 'A', px: '45', sz: '10', start: '10', pnl: '50', fee: '0.45' },
  // D2: ALICE's ETH short, 2 @ 51 → bought back @ 59: pnl −16, fees 0.5 + 0.59, funding −1.5 paid → net −18.59.
  {
    user: ALICE,
    t: D2 + 1 * H,
    coin: 'ETH',
    side: 'A',
    px: '51',
    sz: '2',
    start: '0',
    fee: '0.5',
    builder: OTHER_BUILDER,
  },
  { user: ALICE, t: D2 + 4 * H, coin: 'ETH', side: 'B', px: '59', sz: '2', start: '-2', pnl: '-16', fee: '0.59' },
  // D2: ALICE's SOL long 1 @ 10 ...
  { user: ALICE, t: D2 + 5 * H, coin: 'SOL', side: 'B', px: '10', sz: '1', start: '0', fee: '0.1' },
  // D3: ... flipped by selling 3 @ 12: the long closes (pnl 2, fee 0.36 × 1/3 = 0.12 → fees 0.22, net 1.78) and a
  // short of 2 @ 12 opens (fee 0.24), then partly bought back: 1 @ 11.5, pnl 0.5, fee 0.12 (still open, −1).
  { user: ALICE, t: D3 + 1 * H, coin: 'SOL', side: 'A', px: '12', sz: '3', start: '1', pnl: '2', fee: '0.36' },
  { user: ALICE, t: D3 + 3 * H, coin: 'SOL', side: 'B', px: '11.5', sz: '1', start: '-2', pnl: '0.5', fee: '0.12' },
  // D3: ALICE's second BTC long, still open: 1 @ 110.
  { user: ALICE, t: D3 + 2 * H, coin: 'BTC', side: 'B', px: '110', sz: '1', start: '0', fee: '0.11', builder: BUILDER },
];

/** A fill as the node writes it (a fresh tid, oid and hash each). */
export function fillEvent(f: F): FillEvent {
  tid++;
  return [
    f.user,
    nodeFill({
      coin: f.coin,
      px: f.px,
      sz: f.sz,
      side: f.side,
      time: f.t,
      startPosition: f.start,
      dir: f.side === 'B' ? 'Open Long' : 'Open Short',
      closedPnl: f.pnl ?? '0.0',
      hash: hash(tid),
      oid: tid,
      tid,
      fee: f.fee,
      ...(f.builder ? { builder: f.builder, builderFee: '0.0' } : {}),
    }),
  ];
}

/** A funding payment as a misc event. */
export function funding(time: number, user: string, coin: string, amount: string, szi: string): MiscEvent {
  return {
    time: isoNs(time, 50_000),
    hash: ZERO_HASH,
    inner: { Funding: { deltas: [{ user, coin, funding_amount: amount, szi, funding_rate: '0.0001' }] } },
  };
}

/** A deposit as a misc event (perp cash). */
export function deposit(time: number, user: string, usdc: string): MiscEvent {
  return {
    time: isoNs(time),
    hash: hash(time),
    inner: { LedgerUpdate: { users: [user], delta: { type: 'deposit', usdc } } },
  };
}

/** Writes the history as node files and ingests it into `db`. */
export async function loadAnalyticsHistory(db: TestDatabase): Promise<void> {
  const files = new NodeFiles();
  for (const f of FILLS) files.add('node_fills_by_block', f.t, [fillEvent(f)]);
  files.add('misc_events_by_block', D1 + 10 * 60_000, [deposit(D1 + 10 * 60_000, ALICE, '10000')]);
  files.add('misc_events_by_block', D1 + 20 * 60_000, [deposit(D1 + 20 * 60_000, BOB, '5000')]);
  files.add('misc_events_by_block', D1 + 2 * H, [funding(D1 + 2 * H, ALICE, 'BTC', '2', '1')]);
  files.add('misc_events_by_block', D2 + 2 * H, [funding(D2 + 2 * H, ALICE, 'ETH', '-1.5', '-2')]);
  await files.load(db);
}
