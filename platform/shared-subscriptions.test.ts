// Shared subscriptions on a small schema: one execution per distinct operation, every follower gets every event,
// an error ends every follower, and an operation that fails to start is not shared.
import { createSchema, createYoga } from 'graphql-yoga';
import { describe, expect, it } from 'vitest';
import { PushQueue } from './push-queue.ts';
import { sharedSubscriptions } from './shared-subscriptions.ts';

function setup() {
  const sources = new Map<string, PushQueue<number>>();
  let started = 0;
  const shared = sharedSubscriptions();
  const yoga = createYoga({
    plugins: [shared.plugin],
    maskedErrors: false,
    logging: false,
    schema: createSchema({
      typeDefs: 'type Query { ok: Boolean } type Subscription { ticks(feed: String!): Int! }',
      resolvers: {
        Subscription: {
          ticks: {
            subscribe: (_root: unknown, { feed }: { feed: string }) => {
              if (feed === 'missing') throw new Error('no such feed');
              started++;
              const queue = new PushQueue<number>(100, () => sources.delete(feed));
              sources.set(feed, queue);
              return queue;
            },
            resolve: (n: number) => n,
          },
        },
      },
    }),
  });
  const subscribe = async (feed: string) => {
    const env = yoga.getEnveloped({});
    const result = await env.subscribe({
      schema: env.schema,
      document: env.parse('subscription ($feed: String!) { ticks(feed: $feed) }'),
      variableValues: { feed },
      contextValue: await env.contextFactory(),
    });
    return result as AsyncIterableIterator<{ data?: { ticks: number }; errors?: { message: string }[] }>;
  };
  return { shared, sources, subscribe, started: () => started };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

describe('shared subscriptions', () => {
  it('runs one execution per distinct operation and ends it with its last follower', async () => {
    const t = setup();
    const [a, b, c] = await Promise.all([t.subscribe('x'), t.subscribe('x'), t.subscribe('y')]);
    const [nextA, nextB, nextC] = [a.next(), b.next(), c.next()];
    await settle();
    expect(t.started()).toBe(2);
    expect(t.shared.stats()).toEqual({ streams: 2, subscribers: 3 });
    t.sources.get('x')?.push(1);
    t.sources.get('y')?.push(2);
    expect((await nextA).value).toEqual({ data: { ticks: 1 } });
    expect((await nextB).value).toEqual({ data: { ticks: 1 } });
    expect((await nextC).value).toEqual({ data: { ticks: 2 } });

    await a.return?.();
    expect(t.sources.has('x')).toBe(true);
    await b.return?.();
    await settle();
    expect(t.sources.has('x')).toBe(false);
    expect(t.shared.stats()).toEqual({ streams: 1, subscribers: 1 });
    await c.return?.();
    await settle();
    expect(t.shared.stats()).toEqual({ streams: 0, subscribers: 0 });

    // A new follower after the end starts a new execution.
    const d = await t.subscribe('x');
    const nextD = d.next();
    await settle();
    t.sources.get('x')?.push(3);
    expect((await nextD).value).toEqual({ data: { ticks: 3 } });
    expect(t.started()).toBe(3);
    await d.return?.();
  });

  it('ends every follower when the execution fails', async () => {
    const t = setup();
    const [a, b] = await Promise.all([t.subscribe('x'), t.subscribe('x')]);
    const [nextA, nextB] = [a.next(), b.next()];
    await settle();
    t.sources.get('x')?.end({ error: new Error('feed broke') });
    await expect(nextA).rejects.toThrow('feed broke');
    await expect(nextB).rejects.toThrow('feed broke');
    expect(t.shared.stats()).toEqual({ streams: 0, subscribers: 0 });
  });

  it('gives an operation that fails to start its own error, shared with no one', async () => {
    const t = setup();
    const [a, b] = await Promise.all([t.subscribe('missing'), t.subscribe('missing')]);
    for (const r of [a, b]) expect(r).toMatchObject({ errors: [{ message: 'no such feed' }] });
    expect(t.shared.stats()).toEqual({ streams: 0, subscribers: 0 });
  });
});
