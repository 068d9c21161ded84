import { describe, expect, it } from 'vitest';
import { CursorError, InProcessBus } from '../events/bus.ts';
import { mergedStreams, type ResumableStream, topicStream } from './live.ts';

type M = { a: number; b: number };

const evens = (bus: InProcessBus<M>) => topicStream(bus, 'a', (items) => items.filter((n) => n % 2 === 0));

function follow<T>(stream: ResumableStream<T>) {
  const seen: [T, string][] = [];
  const off = stream.subscribe((event, cursor) => seen.push([event, cursor as string]));
  return { seen, off };
}

describe('resumable streams', () => {
  it('gives, after any cursor, exactly the events that followed it, then the live ones', async () => {
    const bus = new InProcessBus<M>();
    const stream = evens(bus);
    const { seen, off } = follow(stream);
    bus.publish('a', [1, 2, 4]);
    bus.publish('a', [3]); // nothing for this subscriber
    bus.publish('a', [6, 8, 10]);
    off();
    expect(seen.map(([n]) => n)).toEqual([2, 4, 6, 8, 10]);
    for (const [i, [, cursor]] of seen.entries()) {
      const resumed: number[] = [];
      (await stream.resume(cursor, (n) => resumed.push(n)))();
      expect(resumed).toEqual(seen.slice(i + 1).map(([n]) => n));
    }
    const resumed: number[] = [];
    const stop = await stream.resume(seen[1]?.[1] as string, (n) => resumed.push(n));
    bus.publish('a', [12]);
    stop();
    bus.publish('a', [14]);
    expect(resumed).toEqual([6, 8, 10, 12]);
  });

  it('keeps one position per merged topic, whatever order their batches came in', async () => {
    const bus = new InProcessBus<M>();
    const stream = mergedStreams([
      topicStream(bus, 'a', (items) => items.map((n) => `a${n}`)),
      topicStream(bus, 'b', (items) => items.map((n) => `b${n}`)),
    ]);
    const { seen, off } = follow(stream);
    bus.publish('a', [1]);
    bus.publish('b', [1, 2]);
    bus.publish('a', [2]);
    off();
    const after = seen[1]?.[1] as string; // after b1
    const resumed: string[] = [];
    const stop = await stream.resume(after, (e) => resumed.push(e));
    stop();
    expect(resumed).toEqual(['a2', 'b2']);
  });

  it('refuses a cursor the log no longer holds, one of another log, and one of another stream', async () => {
    let now = 0;
    const bus = new InProcessBus<M>({ retainMs: 1000, now: () => now });
    const stream = evens(bus);
    const { seen, off } = follow(stream);
    bus.publish('a', [2]);
    bus.publish('a', [4]);
    now = 5000;
    bus.publish('a', [6]);
    off();
    const first = seen[0]?.[1] as string;
    await expect(stream.resume(first, () => {})).rejects.toThrow(CursorError);
    await expect(stream.resume(first, () => {})).rejects.toThrow(/no longer held/);
    const other = evens(new InProcessBus<M>());
    await expect(other.resume(seen[1]?.[1] as string, () => {})).rejects.toThrow(/no longer has/);
    const merged = mergedStreams([evens(bus), evens(bus)]);
    await expect(merged.resume(seen[1]?.[1] as string, () => {})).rejects.toThrow(/not a cursor of this subscription/);
    // The newest cursor resumes with nothing missed.
    const resumed: number[] = [];
    (await stream.resume(seen[2]?.[1] as string, (n) => resumed.push(n)))();
    expect(resumed).toEqual([]);
  });
});
