import { graphql } from 'graphql';
import { describe, expect, it } from 'vitest';
import { subgraphBuilder } from './builder.ts';
import {
  address,
  bool,
  cursor,
  defineInput,
  type InputOf,
  int,
  intOf,
  list,
  named,
  nestedBody,
  oneOf,
  optional,
  text,
  time,
} from './input.ts';
import { RULE } from './request-schema.ts';

const HOLDERS = defineInput({
  token: address('the token'),
  limit: int('how many', { min: 1, max: 1000, default: 100 }),
  offset: int('to skip', { min: 0, max: 1_000_000, default: 0 }),
  cursor: optional(cursor('the next page', { pattern: '^\\d+:0x[0-9a-f]{40}$', rule: 'must be a page cursor' })),
  startTime: optional(time('from')),
  side: optional(oneOf(['A', 'B'] as const, 'side')),
  name: optional(text('a name', { maxLength: 5 })),
  system: bool('include system', false),
});
const TOKEN = '0xABCDEF0000000000000000000000000000000001';

describe('defineInput', () => {
  it('fills defaults and lowercases addresses, typed as the service takes them', () => {
    const input: InputOf<typeof HOLDERS> = HOLDERS.parse({ token: TOKEN, startTime: null });
    expect(input).toEqual({ token: TOKEN.toLowerCase(), limit: 100, offset: 0, system: false });
  });

  it('states one schema: required are the fields with neither a default nor optional, unknown fields refused', () => {
    expect(HOLDERS.schema).toMatchObject({ type: 'object', required: ['token'], additionalProperties: false });
    expect(Object.keys(HOLDERS.schema.properties as object)).toEqual([
      'token',
      'limit',
      'offset',
      'cursor',
      'startTime',
      'side',
      'name',
      'system',
    ]);
  });

  it('names the field and the rule as each edge calls the field', () => {
    expect(() => HOLDERS.parse({ token: TOKEN, limit: 0 })).toThrow('limit: must be an integer from 1 to 1000, got 0');
    expect(() => HOLDERS.parse({ token: 'x' })).toThrow('token: must be a 0x address, got "x"');
    expect(() => HOLDERS.parse({})).toThrow('token: is required, must be a 0x address');
    expect(() => HOLDERS.parse({ token: TOKEN, cursor: 'zz' }, 'graphql')).toThrow(
      'after: must be a page cursor, got "zz"',
    );
    // MCP states a rule without the field's unit (its descriptions are sentences for a model); /info with it.
    expect(() => HOLDERS.parse({ token: TOKEN, startTime: -1 })).toThrow(
      'startTime: must be an integer from 0 to 8640000000000000, got -1',
    );
    expect(() => HOLDERS.parse({ token: TOKEN, startTime: -1 }, 'info')).toThrow(
      'startTime: must be an integer of epoch milliseconds from 0 to 8640000000000000, got -1',
    );
    expect(() => HOLDERS.fromQuery({ token: TOKEN, start_time: 'yesterday' })).toThrow(
      'start_time: must be an ISO 8601 datetime or epoch milliseconds, got "yesterday"',
    );
    expect(() => HOLDERS.parse({ token: TOKEN, side: 'C' })).toThrow('side: must be one of A, B, got "C"');
    expect(() => HOLDERS.parse({ token: TOKEN, name: 'a\u0000b' })).toThrow(
      'name: must not contain a NUL character (U+0000)',
    );
    expect(() => HOLDERS.parse({ token: TOKEN, page: 2 }, 'graphql')).toThrow(
      'page: unknown parameter; it takes token, limit, offset, after, startTime, side, name, system',
    );
    expect(() => HOLDERS.parse({ token: TOKEN, page: 2 })).toThrow('page: not an argument of this tool');
  });

  it('reads a path route query: snake_case names, times as ISO 8601 or epoch ms', () => {
    const q = HOLDERS.query(['token']);
    expect(Object.keys(q.properties as object)).toEqual([
      'limit',
      'offset',
      'cursor',
      'start_time',
      'side',
      'name',
      'system',
    ]);
    expect(HOLDERS.fromQuery({ token: TOKEN, start_time: '2025-01-02T00:00:00', limit: 5 })).toMatchObject({
      startTime: Date.UTC(2025, 0, 2),
      limit: 5,
    });
    expect(HOLDERS.fromQuery({ token: TOKEN, start_time: '1700000000000' }).startTime).toBe(1_700_000_000_000);
  });

  it('derives GraphQL arguments: defaults in the SDL, Timestamp for times, after for the cursor', async () => {
    const builder = subgraphBuilder<object>();
    let seen: unknown;
    builder.queryType({
      fields: (t) => ({
        holders: t.string({
          args: HOLDERS.args(t, ['token']) as never,
          resolve: (_root, args) => {
            seen = HOLDERS.parse({ ...(args as object), token: TOKEN }, 'graphql');
            return 'ok';
          },
        }),
      }),
    });
    const schema = builder.toSchema();
    const field = schema.getQueryType()?.getFields().holders;
    const sdl = Object.fromEntries(
      (field?.args ?? []).map((a) => [a.name, `${a.type}${a.defaultValue === undefined ? '' : `=${a.defaultValue}`}`]),
    );
    expect(sdl).toEqual({
      limit: 'Int!=100',
      offset: 'Int!=0',
      after: 'String',
      startTime: 'Timestamp',
      side: 'String',
      name: 'String',
      system: 'Boolean!=false',
    });
    const r = await graphql({
      schema,
      source: '{ holders(limit: 3, after: "5:0x0000000000000000000000000000000000000001") }',
    });
    expect(r.errors).toBeUndefined();
    expect(seen).toMatchObject({ limit: 3, offset: 0, cursor: '5:0x0000000000000000000000000000000000000001' });
  });

  it('publishes and reads a field by the name each edge gives it', () => {
    const BATCH = defineInput({
      users: named(list(address('an address'), 'wallets', { min: 1, max: 2, rule: 'must hold 1 to 2 addresses' }), {
        mcp: 'addresses',
        rest: 'addresses',
        graphql: 'addresses',
      }),
      toAddr: optional(named(address('to'), { mcp: 'to' })),
    });
    expect(BATCH.schema).toMatchObject({ required: ['addresses'], properties: { addresses: {}, to: {} } });
    expect(Object.keys(BATCH.query().properties as object)).toEqual(['addresses', 'to_addr']);
    expect(BATCH.parse({ addresses: [TOKEN], to: TOKEN })).toEqual({
      users: [TOKEN.toLowerCase()],
      toAddr: TOKEN.toLowerCase(),
    });
    expect(() => BATCH.parse({ addresses: [TOKEN, 'x'] })).toThrow('addresses[1]: must be a 0x address, got "x"');
    expect(() => BATCH.parse({ addresses: [TOKEN, TOKEN, TOKEN] }, 'graphql')).toThrow(
      'addresses: must hold 1 to 2 addresses',
    );
    expect(() => BATCH.parse({ to: TOKEN })).toThrow('addresses: is required');
    // The definition's own name is not the edge's: an unknown argument, after a missing one and before a bad value.
    expect(() => BATCH.parse({ addresses: [TOKEN], users: [TOKEN] })).toThrow('users: not an argument of this tool');
    expect(() => BATCH.parse({ addresses: ['x'], toAddr: TOKEN })).toThrow('toAddr: not an argument of this tool');
    expect(() => BATCH.parse({ users: [TOKEN] })).toThrow('addresses: is required');
  });

  it('takes an integer of a few values, an Int in GraphQL, and a rule across fields', async () => {
    const BOOK = defineInput(
      {
        coin: text('the coin'),
        nSigFigs: optional(int('figures', { min: 2, max: 5 })),
        mantissa: optional(intOf([1, 2, 5] as const, 'mantissa')),
      },
      {
        check: (input, name) => {
          if (input.mantissa !== undefined && input.nSigFigs !== 5) throw new Error(`${name('mantissa')}: only with 5`);
        },
      },
    );
    const parsed: { mantissa?: 1 | 2 | 5 } = BOOK.parse({ coin: 'BTC', nSigFigs: 5, mantissa: 2 });
    expect(parsed).toEqual({ coin: 'BTC', nSigFigs: 5, mantissa: 2 });
    expect(BOOK.parse({ coin: 'BTC', nSigFigs: null, mantissa: null }, 'info')).toEqual({ coin: 'BTC' });
    expect(() => BOOK.parse({ coin: 'BTC', nSigFigs: 5, mantissa: 3 })).toThrow(
      'mantissa: must be one of 1, 2, 5, got 3',
    );
    expect(() => BOOK.parse({ coin: 'BTC', nSigFigs: 5, mantissa: '2' })).toThrow('mantissa: must be one of 1, 2, 5');
    expect(() => BOOK.parse({ coin: 'BTC', nSigFigs: 4, mantissa: 2 })).toThrow('mantissa: only with 5');
    // An /info body takes null for the optional ones, an enum listing it too.
    expect(BOOK.body().properties).toMatchObject({ mantissa: { type: ['integer', 'null'], enum: [1, 2, 5, null] } });
    const builder = subgraphBuilder<object>();
    builder.queryType({
      fields: (t) => ({ book: t.string({ args: BOOK.args(t, ['coin']) as never, resolve: () => 'ok' }) }),
    });
    const args = builder.toSchema().getQueryType()?.getFields().book?.args ?? [];
    expect(args.map((a) => `${a.name}: ${a.type}`).sort()).toEqual(['mantissa: Int', 'nSigFigs: Int']);
  });

  it('refuses a list of the wrong length by its rule and its length, on every edge', () => {
    const COINS = defineInput({
      coins: list(text('a coin'), 'the coins', { min: 1, max: 3, rule: 'must hold 1 to 3 coins' }),
    });
    const many = ['a', 'b', 'c', 'd'];
    expect(() => COINS.parse({ coins: many })).toThrow('coins: must hold 1 to 3 coins, got 4');
    expect(() => COINS.parse({ coins: [] }, 'info')).toThrow('coins: must hold 1 to 3 coins, got 0');
    expect(() => COINS.fromQuery({ coins: many })).toThrow('coins: must hold 1 to 3 coins, got 4');
    // Every edge's schema states the length and the rule (what OpenAPI publishes), and an /info body's reading
    // (checked against the body's schema) says what parse says.
    for (const edge of [COINS.body(), COINS.query(), COINS.schema]) {
      expect(edge.properties).toMatchObject({ coins: { minItems: 1, maxItems: 3, [RULE]: 'must hold 1 to 3 coins' } });
    }
    const read = COINS.infoReader({ schema: COINS.body() });
    expect(() => read({ coins: many })).toThrow('coins: must hold 1 to 3 coins, got 4');
    expect(() => read({ coins: 'a' })).toThrow('coins: must hold 1 to 3 coins, got "a"');
  });

  it("reads an /info body in one pass: checked against the body's schema, closed, then read as parse reads", () => {
    const read = HOLDERS.infoReader({ schema: HOLDERS.body(['offset']), extras: ['dex'] });
    // The type, a client's extra and an optional field sent null are taken; the input is parse's.
    expect(read({ type: 'holders', token: TOKEN, startTime: null, dex: '' })).toEqual(
      HOLDERS.parse({ token: TOKEN, startTime: null }, 'info'),
    );
    // What the body's schema does not name is refused naming what it takes (an omitted field too), and a required
    // field sent null is a wrong value, not a missing one: the words of the /info 400s.
    expect(() => read({ token: TOKEN, offset: 1 })).toThrow(
      'offset: unknown parameter; it takes type, token, limit, cursor, startTime, side, name, system',
    );
    expect(() => read({ token: null })).toThrow('token: must be a 0x address, got null');
    expect(() => read({ token: TOKEN, type: 5 })).toThrow('type: must be a string, got 5');
    expect(() => read({ token: TOKEN, limit: 0 })).toThrow('limit: must be an integer from 1 to 1000, got 0');
    // A door's form of the body: its own field beside the definition's (checked by the rule the door states for
    // it), read as the definition names it.
    const theSide = { type: 'string', enum: ['A', 'B'] };
    const spelled = HOLDERS.infoReader({
      schema: { ...HOLDERS.body(), properties: { ...(HOLDERS.body().properties as object), the_side: theSide } },
      fields: (body) => ({ ...body, side: body.side ?? body.the_side }),
    });
    expect(spelled({ token: TOKEN, the_side: 'A' }).side).toBe('A');
    expect(() => spelled({ token: TOKEN, the_side: 'C' })).toThrow('the_side: must be one of A, B, got "C"');
  });

  it('reads a definition nested in an /info body, naming its fields under its key', () => {
    const CANDLES = defineInput(
      { coin: text('the coin'), startTime: time('from'), endTime: optional(time('to')) },
      { window: ['startTime', 'endTime'] },
    );
    const schema = nestedBody('req', CANDLES);
    expect(schema).toMatchObject({
      required: ['req'],
      properties: { req: { required: ['coin', 'startTime'] } },
    });
    const read = CANDLES.infoReader({ schema, nested: 'req' });
    expect(read({ type: 'candleSnapshot', req: { coin: 'BTC', startTime: 5, endTime: null } })).toEqual({
      coin: 'BTC',
      startTime: 5,
    });
    expect(() => read({ req: { coin: 'BTC', startTime: 5, endTime: 4 } })).toThrow(
      'req.startTime: must not be after endTime',
    );
    expect(() => read({ req: { coin: 'BTC' } })).toThrow('req.startTime: is required');
    expect(() => read({ req: { coin: 'BTC', startTime: 5, limit: 1 } })).toThrow(
      'req.limit: unknown parameter; it takes coin, startTime, endTime',
    );
    expect(() => read({})).toThrow('req: is required, must be an object');
    expect(() => read({ req: [] })).toThrow('req: must be an object, got []');
  });
});
