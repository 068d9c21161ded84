// The MCP door of a capability (mcp/capability-tools.ts), in process: a whole answer under the door's key as `of`
// states it, a null answer that is an answer (`orNull`) answered as null rather than as missing, and a shared answer
// marked so that the tool server copies its bytes.
import { describe, expect, it } from 'vitest';
import { wholeCapability } from '../kit/capability.ts';
import { type CompatServices, knownJson } from '../kit/info.ts';
import { defineInput, text } from '../kit/input.ts';
import { capabilityTools } from './capability-tools.ts';

const COIN = defineInput({ coin: text('a coin') });
const map = new Map([['BTC', '1']]);
const shared = { BTC: '1' };
const tools = capabilityTools('test', {
  prefix: '',
  list: [
    wholeCapability({
      name: 'book',
      input: COIN,
      answer: async (_s, { coin }) => (coin === 'BTC' ? { coin } : null),
      orNull: true,
      mcp: { name: 'test_book', title: 'A book', description: 'A book, null without one.', key: 'book' },
    }),
    wholeCapability({
      name: 'mapped',
      input: COIN,
      answer: async () => map,
      mcp: { name: 'test_mapped', title: 'A map', description: 'A map.', key: 'books', of: Object.fromEntries },
    }),
    wholeCapability({
      name: 'mids',
      input: COIN,
      answer: async () => shared,
      shared: true,
      mcp: { name: 'test_mids', title: 'Mids', description: 'The mids.', key: 'mids' },
    }),
  ],
});
const call = (name: string, coin: string) =>
  tools
    .find((t) => t.name === name)
    ?.call({ coin }, { services: { test: {} } as unknown as CompatServices, signal: new AbortController().signal });

describe('an MCP door of a whole answer', () => {
  it('answers null under its key when null is an answer (orNull), without a note', async () => {
    expect(await call('test_book', 'BTC')).toEqual({ book: { coin: 'BTC' } });
    expect(await call('test_book', 'ETH')).toEqual({ book: null });
  });

  it('states the answer as `of` makes it, and marks a shared answer encoded once', async () => {
    expect(await call('test_mapped', 'BTC')).toEqual({ books: { BTC: '1' } });
    const answer = await call('test_mids', 'BTC');
    expect(answer?.mids).toBe(shared);
    expect(knownJson(shared)?.toString()).toBe('{"BTC":"1"}');
  });
});

describe('an MCP door of an answer of every domain', () => {
  it("gives the call the platform (every domain's dataCoverage): the services' own", async () => {
    const [tool] = capabilityTools('test', {
      prefix: '',
      list: [
        wholeCapability({
          name: 'covered',
          input: defineInput({}),
          answer: (_s, _q, _selected, platform) => platform.coverage(7),
          mcp: { name: 'test_covered', title: 'Coverage', description: 'The coverage.' },
        }),
      ],
    });
    const coverage = async (now: number) => ({ region: 'here', now }) as never;
    const services = { test: {}, coverage } as unknown as CompatServices;
    expect(await tool?.call({}, { services, signal: new AbortController().signal })).toEqual({
      region: 'here',
      now: 7,
    });
  });
});
