// The /info door of a capability (compat-rest/capability-info.ts), in process: the entry's body schema is the
// definition's (less what the door omits, with its extra fields), its read is the body's one check and reading by the
// definition (a field it does not name refused, what is extra or a client's not read; a nested body's fields read
// under its key), and the answer has the declared shape with the page's paging headers.
import { describe, expect, it } from 'vitest';
import { type Capabilities, capability, wholeCapability } from '../kit/capability.ts';
import { type CompatServices, knownJson } from '../kit/info.ts';
import { address, bool, defineInput, int, optional, time } from '../kit/input.ts';
import { FieldError } from '../platform/fields.ts';
import { capabilityInfo } from './capability-info.ts';

const USER = '0x00000000000000000000000000000000000000aa';
const ROWS = defineInput({
  user: address('whose rows'),
  startTime: optional(time('from')),
  limit: int('rows (1 to 5, default 2)', { min: 1, max: 5, default: 2 }),
  flag: bool('a flag', false),
});

interface Service {
  calls: unknown[];
}
const service: Service = { calls: [] };
const services = { test: service } as unknown as CompatServices;

const list: Capabilities<Service> = {
  prefix: '',
  list: [
    capability({
      name: 'rows',
      input: ROWS,
      page: async (s, q) => {
        s.calls.push(q);
        return { rows: [1, 2], cursors: ['a', 'b'], hasMore: true, nextCursor: 'b', totalCount: 7 };
      },
      record: (n: number) => ({ n }),
      info: {
        type: ['rows', 'sameRows'],
        omit: ['startTime'],
        extra: { the_flag: { type: 'boolean' } },
        body: (b) => ({ ...b, flag: b.flag ?? b.the_flag }),
        result: true,
        response: {},
      },
    }),
    wholeCapability({
      name: 'whole',
      input: ROWS,
      answer: async () => ({ a: 1 }),
      info: { type: 'whole', of: (a) => [a], response: {} },
    }),
  ],
};

describe('an /info door', () => {
  const types = capabilityInfo('test', list);

  it('is one entry per type, in the list order, the types of one door alike', () => {
    expect(Object.keys(types)).toEqual(['rows', 'sameRows', 'whole']);
    expect(types.sameRows?.schema).toEqual(types.rows?.schema);
    expect(types.sameRows?.response).toBe(types.rows?.response);
  });

  it("publishes the definition's body, less what it omits, with its extra fields", () => {
    const schema = types.rows?.schema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(['user', 'limit', 'flag', 'the_flag']);
    expect(schema.required).toEqual(['user']);
  });

  it('checks and reads the body once by the definition: the door names it, a field it omits is refused', () => {
    const read = types.rows?.read as (b: Record<string, unknown>) => unknown;
    // `dex`: a field the exchange's clients send with any type (request-schema.ts CLIENT_EXTRAS), taken unread.
    expect(read({ type: 'rows', user: USER.toUpperCase().replace('0X', '0x'), the_flag: true, dex: '' })).toEqual({
      user: USER,
      limit: 2,
      flag: true,
    });
    expect(() => read({ type: 'rows', user: USER, limit: 6 })).toThrow(FieldError);
    expect(() => read({ type: 'rows', user: USER, limit: 6 })).toThrow('limit: must be an integer from 1 to 5, got 6');
    expect(() => read({ type: 'rows', user: USER, startTime: 5 })).toThrow(
      'startTime: unknown parameter; it takes type, user, limit, flag, the_flag',
    );
    expect(() => read({ type: 'rows', user: null })).toThrow('user: must be a 0x address, got null');
    expect(() => read({ type: 'rows', user: USER, the_flag: 1 })).toThrow('the_flag: must be a boolean, got 1');
  });

  it("takes a field its clients send unread where the door omits it from the definition (userFills' endTime)", () => {
    const fills = wholeCapability({
      name: 'fills',
      input: defineInput({ user: address('whose'), endTime: optional(time('to')) }),
      answer: async () => [],
      info: { type: 'userFills', omit: ['endTime'], response: {} },
    });
    const read = capabilityInfo('test', { prefix: '', list: [fills] }).userFills?.read;
    expect(read?.({ type: 'userFills', user: USER, endTime: 5 })).toEqual({ user: USER });
    expect(() => read?.({ type: 'userFills', user: USER, startTime: 5 })).toThrow(
      'startTime: unknown parameter; it takes type, user',
    );
  });

  it('answers a page in the result envelope with its paging headers, a whole answer as `of` words it', async () => {
    const input = { user: USER, limit: 2, flag: false };
    const reply = await types.rows?.handler({}, services, input);
    expect(reply).toEqual({
      kind: 'json',
      body: { result: [{ n: 1 }, { n: 2 }], cursor: null },
      headers: { 'x-has-more': 'true', 'x-next-cursor': 'b', 'x-total-count': '7' },
    });
    expect(service.calls).toEqual([input]);
    expect(await types.whole?.handler({}, services, input)).toEqual({ kind: 'json', body: [{ a: 1 }] });
  });

  it("reads a nested body's object by the definition, a refusal naming the field under its key", () => {
    const nested = wholeCapability({
      name: 'nested',
      input: ROWS,
      answer: async () => [],
      info: { type: 'nested', nested: 'req', omit: ['startTime'], response: {} },
    });
    const entry = capabilityInfo('test', { prefix: '', list: [nested] }).nested;
    const schema = entry?.schema as { properties: { req: { properties: object } }; required: string[] };
    expect(schema.required).toEqual(['req']);
    expect(Object.keys(schema.properties)).toEqual(['req']);
    expect(Object.keys(schema.properties.req.properties)).toEqual(['user', 'limit', 'flag']);
    const read = entry?.read as (b: Record<string, unknown>) => unknown;
    expect(read({ type: 'nested', req: { user: USER } })).toEqual({ user: USER, limit: 2, flag: false });
    expect(() => read({ type: 'nested', req: { user: USER, limit: 6 } })).toThrow(/^req\.limit: /);
    expect(() => read({ type: 'nested', req: { user: USER, startTime: 5 } })).toThrow(
      'req.startTime: unknown parameter; it takes user, limit, flag',
    );
    expect(() => read({ type: 'nested' })).toThrow('req: is required, must be an object');
  });

  it("gives the call the platform (every domain's dataCoverage): the services' own", async () => {
    const coverage = async (now: number) => ({ region: 'here', datasets: {}, backfills: [], now }) as never;
    const covered = wholeCapability({
      name: 'covered',
      input: defineInput({}),
      answer: (_s, _q, _selected, platform) => platform.coverage(7),
      info: { type: 'covered', response: {} },
    });
    const entry = capabilityInfo('test', { prefix: '', list: [covered] }).covered;
    expect(await entry?.handler({}, { ...services, coverage }, {})).toEqual({
      kind: 'json',
      body: { region: 'here', datasets: {}, backfills: [], now: 7 },
    });
  });

  it('refuses a capability that costs more than a call', () => {
    const dear = capability({
      name: 'dear',
      input: ROWS,
      page: async () => ({ rows: [], cursors: [], hasMore: false, nextCursor: null }),
      credits: () => 3,
      info: { type: 'dear', response: {} },
    });
    expect(() => capabilityInfo('test', { prefix: '', list: [dear] })).toThrow(/credits/);
  });
});

describe('an /info door of a relayed, shared or hand-written answer', () => {
  const sent: unknown[] = [];
  const upstream = {
    post: async (body: unknown) => {
      sent.push(body);
      return { status: 200, contentType: 'application/json', body: '{"node":true}' };
    },
  };
  const map = { BTC: '1' };
  const doors = capabilityInfo('test', {
    prefix: '',
    list: [
      wholeCapability({
        name: 'relayed',
        input: defineInput({ user: address('whose') }),
        answer: async () => 'not asked on this door',
        info: { type: 'relayed', relay: 0, response: {} },
      }),
      wholeCapability({
        name: 'shared',
        input: ROWS,
        answer: async () => map,
        shared: true,
        info: { type: 'shared', response: {} },
      }),
      wholeCapability({
        name: 'bytes',
        input: ROWS,
        answer: async () => map,
        info: { type: 'bytes', bytes: (a) => Buffer.from(`{"result":${JSON.stringify(a)}}`), response: {} },
      }),
    ],
  });
  const withUpstream = { ...services, upstream } as unknown as CompatServices;

  it("relays the body as sent (its documented fields) and answers the node's bytes, the call not made", async () => {
    // `dex`: a client's field the type does not read, not sent on.
    const body = { type: 'relayed', user: USER.replace('aa', 'AA'), dex: '' };
    const input = doors.relayed?.read?.(body);
    expect(input).toEqual({ user: USER });
    expect(await doors.relayed?.handler(body, withUpstream, input)).toEqual({
      kind: 'relay',
      status: 200,
      contentType: 'application/json',
      body: '{"node":true}',
    });
    expect(sent).toEqual([{ type: 'relayed', user: USER.replace('aa', 'AA') }]);
  });

  it('sends a shared answer as its bytes encoded once, and bytes the door writes as they are', async () => {
    const input = { user: USER, limit: 2, flag: false };
    const reply = await doors.shared?.handler({}, withUpstream, input);
    expect(reply).toEqual({ kind: 'encoded', body: Buffer.from('{"BTC":"1"}') });
    expect(knownJson(map)).toBe((reply as { body: Buffer }).body);
    expect(await doors.bytes?.handler({}, withUpstream, input)).toEqual({
      kind: 'encoded',
      body: Buffer.from('{"result":{"BTC":"1"}}'),
    });
  });
});
