// The hip4 subgraph behind the router, over the simulated node: one query from a question to its outcomes, their
// sides' live books (markets' Market) and the traders' HIP-4 fills and accounts fills (User across three
// subgraphs); the registry and fill subscriptions over graphql-ws and the /ws hip4Events channel receiving a
// settlement; fills on `#N` coins reaching the trades and fills topics the existing channels follow.
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hip4FillRow } from '../../db/rows/hip4.ts';
import type { TradeRow } from '../../db/rows/markets.ts';
import type { Hip4RegistryEvent } from '../../events/bus.ts';
import { graphqlWsClient } from '../../test/graphql.ts';
import { openRouterHere } from '../../test/router-here.ts';
import { startTestStack, type TestStack } from '../../test/stack.ts';
import { openSocket } from '../../test/ws-client.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ historyMs: 3_600_000, openRouter: openRouterHere });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: GraphQL answers are checked field by field below
type Answer = { data?: any; errors?: { message: string; extensions?: { code?: string } }[] };

async function gql(query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const res = await fetch(stack.urls.router, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as Answer;
}

/**
 * The first frame of a subscription through the router (data or errors). The subscription reaches the subgraph
 * through the router some time after `subscribe`: `publish` runs every 200 ms until the first frame arrives.
 */
async function firstFrame(client: Client, query: string, publish: () => void): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
    let unsubscribe = () => {};
    const again = setInterval(publish, 200);
    const finish = () => {
      clearTimeout(timer);
      clearInterval(again);
      unsubscribe();
    };
    const timer = setTimeout(() => {
      finish();
      reject(new Error('no frame within 20 s'));
    }, 20_000);
    unsubscribe = client.subscribe<unknown>(
      { query },
      {
        next: (r) => {
          finish();
          resolve(r as Answer);
        },
        error: (err) => {
          finish();
          resolve({ errors: Array.isArray(err) ? err : [{ message: String(err) }] });
        },
        complete: () => {},
      },
    );
  });
}

const QUESTION_TO_FILLS = `{
  questions(venue: "predict", limit: 3) {
    questionId venueName deployer
    venue { name feeScale deployer { address } subDeployers { action addresses } }
    outcomes {
      outcomeId question { questionId }
      sides {
        coin
        market { coin book { bids { px sz } asks { px sz } } trades(limit: 3) {
          users { address hip4Fills(limit: 5) { coin outcomeId px } fills(first: 2) { edges { node { coin } } } }
        } }
      }
    }
  }
}`;

describe('hip4 through the router', () => {
  it('goes from a question to its outcomes, their live books and the traders’ HIP-4 and accounts fills', async () => {
    const { data, errors } = await gql(QUESTION_TO_FILLS);
    expect(errors).toBeUndefined();
    expect(data.questions.length).toBeGreaterThan(0);
    let books = 0;
    let traders = 0;
    for (const q of data.questions) {
      expect(q.venueName).toBe('predict');
      expect(q.venue.deployer.address).toBe(q.deployer);
      expect(q.venue.subDeployers.length).toBeGreaterThan(0);
      for (const o of q.outcomes) {
        expect(o.question.questionId).toBe(q.questionId);
        expect(o.sides.map((s: { coin: string }) => s.coin)).toEqual([
          `#${10 * o.outcomeId}`,
          `#${10 * o.outcomeId + 1}`,
        ]);
        for (const side of o.sides) {
          expect(side.market.coin).toBe(side.coin);
          if (side.market.book && side.market.book.bids.length + side.market.book.asks.length > 0) books++;
          for (const trade of side.market.trades) {
            for (const user of trade.users) {
              traders++;
              // A trader of an outcome coin has HIP-4 fills, and the same fills in accounts.
              expect(user.hip4Fills.length).toBeGreaterThan(0);
              for (const f of user.hip4Fills) expect(f.coin).toBe(`#${10 * f.outcomeId + Number(f.coin.slice(-1))}`);
              expect(user.fills.edges.length).toBeGreaterThan(0);
            }
          }
        }
      }
    }
    expect(books).toBeGreaterThan(0);
    expect(traders).toBeGreaterThan(0);
  });

  it('resolves an outcome and its settlement, analytics and providers', async () => {
    const { data, errors } = await gql(`{
      outcomes(limit: 1000) { outcomeId settled settleFraction sides { settlementValue } }
      hip4Providers { venue fills volumeUsdc }
      hip4Analytics(interval: I1h) { status buckets { bucket fills } }
    }`);
    expect(errors).toBeUndefined();
    expect(data.outcomes.length).toBeGreaterThan(0);
    for (const o of data.outcomes.filter((x: { settled: boolean }) => x.settled)) {
      expect(Number(o.sides[0].settlementValue) + Number(o.sides[1].settlementValue)).toBe(1);
    }
    expect(data.hip4Providers.length).toBeGreaterThan(0);
    expect(data.hip4Analytics.status).toBe('live');
  });

  it('refuses a cap with BAD_USER_INPUT naming the argument', async () => {
    const { errors } = await gql('{ questions(questionId: 10001) { questionId } }');
    expect(errors?.[0]?.message).toContain('questionId');
    expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  describe('subscriptions', () => {
    let client: Client;
    beforeAll(() => {
      client = graphqlWsClient(stack.urls.router);
    });
    afterAll(async () => {
      await client?.dispose();
    });

    it('hip4Registry receives a settlement', async () => {
      const settled: Hip4RegistryEvent = {
        block_number: 1,
        time: Date.now(),
        kind: 'OutcomeSettled',
        data: { outcome_id: 424242, settle_fraction: '0.25', details: 'test' },
      };
      const frame = await firstFrame(
        client,
        'subscription { hip4Registry(kinds: [OutcomeSettled]) { kind outcomeId settleFraction } }',
        () => {
          // An event of another kind first: the filter must leave it out.
          stack.bus.publish('hip4Registry', [{ ...settled, kind: 'VenueRegistered', data: { venue: 'x' } }]);
          stack.bus.publish('hip4Registry', [settled]);
        },
      );
      expect(frame.errors).toBeUndefined();
      expect(frame.data.hip4Registry).toEqual({ kind: 'OutcomeSettled', outcomeId: 424242, settleFraction: '0.25' });
    });

    it('hip4Fills of a question receives only its outcomes’ fills', async () => {
      const { rows } = await stack.db.pool.query<{ outcome_id: number; question_id: number }>(
        'SELECT outcome_id, question_id FROM hip4.outcomes WHERE question_id IS NOT NULL ORDER BY outcome_id LIMIT 1',
      );
      const { outcome_id, question_id } = rows[0] as { outcome_id: number; question_id: number };
      const fill = (outcome: number, tid: number): Hip4FillRow => ({
        block_number: 1,
        time: Date.now(),
        address: '0x00000000000000000000000000000000000000f1',
        coin: `#${10 * outcome}`,
        outcome_id: outcome,
        side_index: 0,
        px: '0.5',
        sz: '1',
        side: 'B',
        dir: 'Buy',
        closed_pnl: '0',
        hash: `0x${'0'.repeat(64)}`,
        oid: tid,
        tid,
        fee: '0',
        fee_token: 'USDH',
        crossed: true,
        is_settlement: false,
      });
      const frame = await firstFrame(
        client,
        `subscription { hip4Fills(questionId: ${question_id}) { coin outcomeId tid } }`,
        () => {
          stack.bus.publish('hip4Fills', [fill(999_999, 1)]);
          stack.bus.publish('hip4Fills', [fill(outcome_id, 2)]);
        },
      );
      expect(frame.errors).toBeUndefined();
      expect(frame.data.hip4Fills).toEqual([{ coin: `#${10 * outcome_id}`, outcomeId: outcome_id, tid: '2' }]);
    });
  });

  it('/ws hip4Events sends a settlement; fills on #N coins reach the trades and fills topics', async () => {
    const ws = await openSocket(stack.urls.ws);
    ws.send({ method: 'subscribe', subscription: { type: 'hip4Events', kinds: ['QuestionSettled'] } });
    const ack = (await ws.next()) as { channel: string };
    expect(ack.channel).toBe('subscriptionResponse');
    const event: Hip4RegistryEvent = {
      block_number: 2,
      time: Date.now(),
      kind: 'QuestionSettled',
      data: { question_id: 77, settled_named_outcomes: [771] },
    };
    stack.bus.publish('hip4Registry', [{ ...event, kind: 'OutcomeRegistered' }, event]);
    expect(await ws.next()).toEqual({ channel: 'hip4Events', data: event });
    ws.send({ method: 'subscribe', subscription: { type: 'hip4Events', kinds: ['Nope'] } });
    expect(await ws.next()).toMatchObject({ channel: 'error', data: expect.stringContaining('kinds') });
    // An outcome side's trades come on the trades channel like any coin's.
    ws.send({ method: 'subscribe', subscription: { type: 'trades', coin: '#12340' } });
    expect(await ws.next()).toMatchObject({ channel: 'subscriptionResponse' });
    const trade: TradeRow = {
      block_number: 3,
      seq: 0,
      time: Date.now(),
      coin: '#12340',
      side: 'B',
      px: '0.42',
      sz: '10',
      hash: `0x${'0'.repeat(64)}`,
      tid: 77,
      buyer: '0x00000000000000000000000000000000000000b1',
      seller: '0x00000000000000000000000000000000000000b2',
      fees: '0.001',
    };
    stack.bus.publish('trades', [trade]);
    expect(await ws.next()).toMatchObject({ channel: 'trades', data: [{ coin: '#12340', px: '0.42', tid: 77 }] });
    ws.close();

    // Ingest publishes an outcome coin's fills as any coin's (the trades, userFills and userEvents channels' source).
    const seen = { trades: 0, fills: 0, hip4Fills: 0 };
    const stops = (['trades', 'fills', 'hip4Fills'] as const).map((topic) =>
      stack.bus.subscribe(topic, (items) => {
        seen[topic] += (items as readonly { coin: string }[]).filter((i) => i.coin.startsWith('#')).length;
      }),
    );
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && !(seen.trades && seen.fills && seen.hip4Fills)) {
      await new Promise((r) => setTimeout(r, 200));
    }
    for (const stop of stops) stop();
    expect(seen.trades).toBeGreaterThan(0);
    expect(seen.fills).toBeGreaterThan(0);
    expect(seen.hip4Fills).toBe(seen.fills);
  }, 40_000);
});
