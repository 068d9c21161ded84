// The analytics subgraph in the supergraph: one router query reaching User's fields in accounts and analytics, the
// leaderboard's rows resolving User in accounts, and Builder @key(address).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Stack } from '../../stack.ts';
import { ALICE, BOB, BUILDER, loadAnalyticsHistory, UNTIL } from '../../test/analytics-history.ts';
import { createTestDatabase, type TestDatabase } from '../../test/db.ts';
import { startStackWithoutNode } from '../../test/stack.ts';
import { deriveUntil } from './writer/job.ts';
import { refreshLeaderboard } from './writer/leaderboard.ts';

let db: TestDatabase;
let stack: Stack;

beforeAll(async () => {
  db = await createTestDatabase();
  await loadAnalyticsHistory(db);
  await deriveUntil(db.pool, UNTIL);
  await refreshLeaderboard(db.pool, 'all', UNTIL);
  // The history is dated (D1 to D3): the services' clock is the tests' UNTIL, so windows ending now hold it.
  stack = await startStackWithoutNode(db.pool, { now: () => UNTIL });
});
afterAll(async () => {
  await stack?.close();
  await db?.drop();
});

it('one query over accounts and analytics through the router', async () => {
  const res = await fetch(stack.urls.router, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({
      query: `{
        user(address: "${ALICE}") {
          fills(first: 100) { edges { node { closedPnl } } }
          pnlCalendar(window: ALL) { totals { realizedPnl netPnl } }
          performance(window: ALL) { wins losses }
        }
        leaderboard(window: ALL, by: VOLUME) { rows { rank user { address fills(first: 1) { edges { node { coin } } } } } }
        builder(address: "${BUILDER}") { externalActivity(addresses: ["${ALICE}", "${BOB}"]) { summary { flagged } } }
      }`,
    }),
  });
  const body = await res.json();
  expect(body.errors).toBeUndefined();
  const realized = body.data.user.fills.edges.reduce(
    (s: number, e: { node: { closedPnl: string } }) => s + Number(e.node.closedPnl),
    0,
  );
  expect(body.data.user.pnlCalendar.totals).toEqual({ realizedPnl: '6.5', netPnl: '3.02' });
  expect(realized).toBeCloseTo(6.5, 9);
  expect(body.data.user.performance).toEqual({ wins: 2, losses: 1 });
  expect(body.data.leaderboard.rows.map((r: { rank: number; user: { address: string } }) => r.user.address)).toEqual([
    BOB,
    ALICE,
  ]);
  expect(body.data.leaderboard.rows[0].user.fills.edges).toHaveLength(1);
  expect(body.data.builder.externalActivity.summary).toEqual({ flagged: 2 });
});
