// A second hand-written history (issue 30: analytics by the spec's definitions), loaded as node files through the
// real ingest. Times are off the hour on purpose (the window rule), positions stay open at the end, funding is paid
// and received on open positions (and on a coin no stored fill ever traded), one day is a loss, one account's equity
// goes below zero and another's is never positive. The expected answers are worked by hand in
// domains/analytics/truth.test.ts; the numbers each event moves are in the comments here.
import { expect } from 'vitest';
import type { AnalyticsService } from '../domains/analytics/service/index.ts';
import type { DomainServices } from '../kit/domain.ts';
import type { CompatServices } from '../kit/info.ts';
import { NodeFiles } from './accounts-files.ts';
import { deposit, type F, fillEvent, funding, H } from './analytics-history.ts';
import { derivedCompat, ingestAndDeriveLive } from './analytics-services.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';
import { addr } from './node-files.ts';

export const CAROL = addr(0xca401);
export const DAVE = addr(0xda7e);
export const ERIN = addr(0xe41);
export const FRANK = addr(0xf4a4c);
/** CAROL's own builder (the one asked about) and another one. */
export const OWN = addr(0xb1);
export const OTHER = addr(0xb2);
export const M = 60_000;
/** 2026-10-05 00:00 UTC and the two days after. */
export const E1 = Date.UTC(2026, 9, 5);
export const E2 = E1 + 24 * H;
export const E3 = E2 + 24 * H;
/** "Now" of the tests: E3 12:30 UTC, half an hour into an hour. Everything before it is derived. */
export const NOW = E3 + 12 * H + 30 * M;
/** NOW − 7 days: 2026-09-30 12:30 UTC. */
export const WEEK_AGO = NOW - 7 * 24 * H;

export const FILLS: F[] = [
  // CAROL (deposits 1000 at E1 00:05).
  // c1 E1 01:15 BTC long 2 @ 100, fee 0.2, through OWN: stays open to the end (trip T1).
  { user: CAROL, t: E1 + H + 15 * M, coin: 'BTC', side: 'B', px: '100', sz: '2', start: '0', fee: '0.2', builder: OWN },
  // c2 E2 03:20 ETH short 1 @ 200, fee 0.2, through OTHER (trip T2) ...
  {
    user: CAROL,
    t: E2 + 3 * H + 20 * M,
    coin: 'ETH',
    side: 'A',
    px: '200',
    sz: '1',
    start: '0',
    fee: '0.2',
    builder: OTHER,
  },
  // c3 E2 05:40 ... bought back @ 230: closedPnl −30, fee 0.23 (T2 closed: a loss).
  {
    user: CAROL,
    t: E2 + 5 * H + 40 * M,
    coin: 'ETH',
    side: 'B',
    px: '230',
    sz: '1',
    start: '-1',
    pnl: '-30',
    fee: '0.23',
  },
  // c4 E3 09:10 SOL long 10 @ 5, fee 0.05, through OTHER (trip T3) ...
  {
    user: CAROL,
    t: E3 + 9 * H + 10 * M,
    coin: 'SOL',
    side: 'B',
    px: '5',
    sz: '10',
    start: '0',
    fee: '0.05',
    builder: OTHER,
  },
  // c5 E3 11:45 ... 4 sold @ 6: closedPnl 4, fee 0.024; 6 still open.
  {
    user: CAROL,
    t: E3 + 11 * H + 45 * M,
    coin: 'SOL',
    side: 'A',
    px: '6',
    sz: '4',
    start: '10',
    pnl: '4',
    fee: '0.024',
  },

  // DAVE (no deposit: his history starts with a funding payment on a coin nobody filled).
  // d1 E1 07:30 AVAX long 10 @ 20, fee 0.2; d2 E1 08:30 sold @ 19.7: closedPnl −3, fee 0.197.
  { user: DAVE, t: E1 + 7 * H + 30 * M, coin: 'AVAX', side: 'B', px: '20', sz: '10', start: '0', fee: '0.2' },
  {
    user: DAVE,
    t: E1 + 8 * H + 30 * M,
    coin: 'AVAX',
    side: 'A',
    px: '19.7',
    sz: '10',
    start: '10',
    pnl: '-3',
    fee: '0.197',
  },
  // d3 E3 12:10 BTC long 1 @ 103, fee 0.103, through OTHER: BTC's last fill price (CAROL's T1 marked at 103).
  {
    user: DAVE,
    t: E3 + 12 * H + 10 * M,
    coin: 'BTC',
    side: 'B',
    px: '103',
    sz: '1',
    start: '0',
    fee: '0.103',
    builder: OTHER,
  },

  // ERIN (no deposit, equity never positive).
  // e1 E2 10:15 AVAX long 1 @ 19.8, fee 0.1; e2 E2 10:45 sold @ 19.5: closedPnl −0.3, fee 0.1.
  { user: ERIN, t: E2 + 10 * H + 15 * M, coin: 'AVAX', side: 'B', px: '19.8', sz: '1', start: '0', fee: '0.1' },
  {
    user: ERIN,
    t: E2 + 10 * H + 45 * M,
    coin: 'AVAX',
    side: 'A',
    px: '19.5',
    sz: '1',
    start: '1',
    pnl: '-0.3',
    fee: '0.1',
  },
  // e3 E2 12:20 AVAX long 1 @ 19.6, fee 0.1: open.
  { user: ERIN, t: E2 + 12 * H + 20 * M, coin: 'AVAX', side: 'B', px: '19.6', sz: '1', start: '0', fee: '0.1' },

  // FRANK, around the edge of the 7-day window (WEEK_AGO = 09-30 12:30).
  // f1 09-30 11:40 BTC long 1 @ 90, fee 0.09: before the hour holding WEEK_AGO (outside 7d).
  { user: FRANK, t: WEEK_AGO - 50 * M, coin: 'BTC', side: 'B', px: '90', sz: '1', start: '0', fee: '0.09' },
  // f2 09-30 12:10 sold @ 95: closedPnl 5, fee 0.095: in the hour holding WEEK_AGO (counted whole: inside 7d).
  { user: FRANK, t: WEEK_AGO - 20 * M, coin: 'BTC', side: 'A', px: '95', sz: '1', start: '1', pnl: '5', fee: '0.095' },
  // f3 09-30 13:30 ETH long 1 @ 180, fee 0.18; f4 09-30 14:00 sold @ 185: closedPnl 5, fee 0.185.
  { user: FRANK, t: WEEK_AGO + 60 * M, coin: 'ETH', side: 'B', px: '180', sz: '1', start: '0', fee: '0.18' },
  { user: FRANK, t: WEEK_AGO + 90 * M, coin: 'ETH', side: 'A', px: '185', sz: '1', start: '1', pnl: '5', fee: '0.185' },
];

/** The history as node files; its last event is DAVE's opening fill d3 (E3 12:10), nothing after it. */
export function truthHistoryFiles(): NodeFiles {
  const files = new NodeFiles();
  for (const f of FILLS) files.add('node_fills_by_block', f.t, [fillEvent(f)]);
  const misc = [
    deposit(E1 + 5 * M, CAROL, '1000'),
    // CAROL's BTC long (szi 2) pays 0.5 and 0.6, then receives 0.3; she receives 0.4 on DOGE, which no stored fill
    // ever traded (a position from before the history).
    funding(E1 + 2 * H, CAROL, 'BTC', '-0.5', '2'),
    funding(E2 + 2 * H, CAROL, 'BTC', '-0.6', '2'),
    funding(E2 + 8 * H, CAROL, 'DOGE', '0.4', '100'),
    funding(E3 + 2 * H, CAROL, 'BTC', '0.3', '2'),
    // DAVE receives 1 on DOGE before his first fill.
    funding(E1 + 6 * H, DAVE, 'DOGE', '1', '50'),
  ];
  for (const e of misc) files.add('misc_events_by_block', Date.parse(`${e.time.slice(0, 23)}Z`), [e]);
  return files;
}

export interface TruthStack {
  db: TestDatabase;
  /** The compat services (as the REST handlers and the MCP tools get them). */
  services: CompatServices;
  analytics: AnalyticsService;
  /** A REST answer's body, its status checked to be 200. */
  // biome-ignore lint/suspicious/noExplicitAny: answers are checked field by field
  rest(method: 'GET' | 'POST', url: string, payload?: object): Promise<any>;
  stop(): Promise<void>;
}

/**
 * The history loaded into a database of its own, derived up to NOW and ranked as the refresh ranks it at NOW, with
 * the domain services (their clock at NOW) and the compat app over them (answering through `app.inject()`).
 */
export async function startTruthStack(): Promise<TruthStack> {
  const db = await createTestDatabase();
  // As npm start derives it: following what ingest has committed, to the last fill, with no later event to wait for.
  await ingestAndDeriveLive(db, truthHistoryFiles(), NOW);
  const { started, services, app } = await derivedCompat(db, null, NOW);
  const domains = started.services as unknown as DomainServices;
  return {
    db,
    services,
    analytics: (domains as unknown as { analytics: AnalyticsService }).analytics,
    async rest(method, url, payload) {
      const res = await app.inject({ method, url, payload });
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      return res.json();
    },
    async stop() {
      await app.close();
      await started.stop();
      await db.drop();
    },
  };
}
