// The in-process bus and its deferred view: who is called, when, and in which order.
import { describe, expect, it } from 'vitest';
import { deferredView, InProcessBus } from './bus.ts';

type Events = { a: number; b: string };

const tick = () => new Promise((r) => setImmediate(r));

describe('deferredView', () => {
  it("calls its subscribers after the publish's microtasks, in publish order across topics", async () => {
    const bus = new InProcessBus<Events>();
    const view = deferredView(bus);
    const calls: string[] = [];
    view.subscribe('a', (items) => calls.push(`view a ${items.join()}`));
    view.subscribe('b', (items) => calls.push(`view b ${items.join()}`));
    // A promise-based consumer of the bus itself, as a GraphQL subscription is.
    bus.subscribe('a', (items) => {
      void Promise.resolve()
        .then(() => Promise.resolve())
        .then(() => calls.push(`async a ${items.join()}`));
    });
    bus.publish('a', [1, 2]);
    bus.publish('b', ['x']);
    bus.publish('a', [3]);
    expect(calls).toEqual([]);
    await tick();
    expect(calls).toEqual(['async a 1,2', 'async a 3', 'view a 1,2', 'view b x', 'view a 3']);
  });

  it('delivers a publish to the subscribers of its moment that are still subscribed', async () => {
    const bus = new InProcessBus<Events>();
    const view = deferredView(bus);
    const got: string[] = [];
    const offEarly = view.subscribe('a', (items) => got.push(`early ${items.join()}`));
    const offLeaving = view.subscribe('a', (items) => got.push(`leaving ${items.join()}`));
    bus.publish('a', [1]);
    view.subscribe('a', (items) => got.push(`late ${items.join()}`));
    offLeaving();
    await tick();
    expect(got).toEqual(['early 1']);
    bus.publish('a', [2]);
    await tick();
    expect(got).toEqual(['early 1', 'early 2', 'late 2']);
    offEarly();
  });

  it('keeps calling the other subscribers when one throws', async () => {
    const errors: string[] = [];
    const bus = new InProcessBus<Events>();
    const view = deferredView(bus);
    const got: number[] = [];
    const original = console.error;
    console.error = (line: string) => errors.push(line);
    try {
      view.subscribe('a', () => {
        throw new Error('broken subscriber');
      });
      view.subscribe('a', (items) => got.push(...items));
      bus.publish('a', [7]);
      await tick();
    } finally {
      console.error = original;
    }
    expect(got).toEqual([7]);
    expect(errors.join()).toContain('broken subscriber');
  });
});
