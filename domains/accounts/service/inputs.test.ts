// The accounts input definitions at their limits, on each edge that reads them: the caps and defaults of spec §8
// (historicalOrders: limit 1 to 5000, default 2000; lookbackDays 1 to 365) and of the exchange's answers (a page of
// history 500, of compact fill rows 1000, of wire fills 2000), and the refusal each edge gets, naming the field as it
// calls it and saying the value it got.
import { graphql } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Edge } from '../../../kit/input.ts';
import { accountsSchema } from '../schema/index.ts';
import {
  ALL_FILL_PAGE,
  BUILDER_REVENUE,
  CLEARINGHOUSE_STATES,
  COLLECT_LIQUIDATIONS,
  COLLECT_USER_EVENTS,
  FILL_PAGE,
  FILL_ROWS,
  FUNDING_PAGE,
  HISTORICAL_ORDERS,
  LIQUIDATION_STREAM,
  LIQUIDATIONS,
  ORDER_STATUS,
  ORDERS_PAGE,
  TWAP_SLICE_FILLS,
  USER_FILLS_BY_TIME,
  USER_FILLS_STREAM,
} from './inputs.ts';

const USER = `0x${'AB'.repeat(20)}`;
const user = USER.toLowerCase();
const refusal = (read: () => unknown) => {
  try {
    read();
  } catch (err) {
    return (err as Error).message;
  }
  return 'accepted';
};

describe('historicalOrders (spec §8)', () => {
  it.each(['mcp', 'info'] as Edge[])(
    'takes limit 1 and 5000 and lookbackDays 1 and 365 on %s, default 2000',
    (edge) => {
      expect(HISTORICAL_ORDERS.parse({ user: USER }, edge)).toEqual({ user, limit: 2000 });
      for (const limit of [1, 5000]) expect(HISTORICAL_ORDERS.parse({ user, limit }, edge).limit).toBe(limit);
      for (const lookbackDays of [1, 365]) {
        expect(HISTORICAL_ORDERS.parse({ user, lookbackDays }, edge).lookbackDays).toBe(lookbackDays);
      }
      for (const limit of [0, 5001]) {
        expect(refusal(() => HISTORICAL_ORDERS.parse({ user, limit }, edge))).toBe(
          `limit: must be an integer from 1 to 5000, got ${limit}`,
        );
      }
      for (const lookbackDays of [0, 366]) {
        expect(refusal(() => HISTORICAL_ORDERS.parse({ user, lookbackDays }, edge))).toBe(
          `lookbackDays: must be an integer from 1 to 365, got ${lookbackDays}`,
        );
      }
      expect(refusal(() => HISTORICAL_ORDERS.parse({ user, cursor: '12ab' }, edge))).toBe(
        'cursor: must be an oid (at most 2^63 - 1), got "12ab"',
      );
    },
  );

  it('pages User.orders by `first` 1 to 2000 (default 100) and `after`', () => {
    // The user is the parent User's.
    expect(ORDERS_PAGE.parse({ user: USER }, 'graphql')).toEqual({ user, limit: 100 });
    expect(ORDERS_PAGE.parse({ user, first: 2000, after: '17' }, 'graphql')).toEqual({
      user,
      limit: 2000,
      cursor: '17',
    });
    for (const first of [0, 2001]) {
      expect(refusal(() => ORDERS_PAGE.parse({ user, first }, 'graphql'))).toBe(
        `first: must be an integer from 1 to 2000, got ${first}`,
      );
    }
    expect(refusal(() => ORDERS_PAGE.parse({ user, startTime: 2, endTime: 1 }, 'graphql'))).toBe(
      'startTime: must not be after endTime',
    );
  });
});

describe('fills', () => {
  it('pages compact rows 1 to 1000 (default 100) on the path routes, in their snake_case', () => {
    expect(FILL_ROWS.fromQuery({ user: USER })).toEqual({ user, limit: 100, includeOrderType: false });
    expect(FILL_ROWS.fromQuery({ limit: 1000, include_order_type: true })).toMatchObject({
      limit: 1000,
      includeOrderType: true,
    });
    expect(refusal(() => FILL_ROWS.fromQuery({ limit: 1001 }))).toBe(
      'limit: must be an integer from 1 to 1000, got 1001',
    );
    expect(refusal(() => FILL_ROWS.fromQuery({ start_time: '2026-01-02', end_time: '2026-01-01' }))).toBe(
      'start_time: must not be after end_time',
    );
    expect(refusal(() => FILL_ROWS.fromQuery({ cursor: 'yesterday' }))).toBe(
      'cursor: must be "<epoch_ms>:<block>:<event index>:<tid>" as a page gave it, got "yesterday"',
    );
  });

  it('pages compact rows 1 to 1000 in MCP and /info, naming the fields as they do', () => {
    expect(refusal(() => FILL_ROWS.parse({ limit: 0 }, 'info'))).toBe(
      'limit: must be an integer from 1 to 1000, got 0',
    );
    expect(refusal(() => FILL_ROWS.parse({ side: 'X' }, 'mcp'))).toBe('side: must be one of A, B, got "X"');
    expect(refusal(() => FILL_ROWS.parse({ startTime: 2, endTime: 1 }, 'mcp'))).toBe(
      'startTime: must not be after endTime',
    );
  });

  it('pages GraphQL fill connections by `first` 1 to 2000 (default 100) and `after`', () => {
    expect(FILL_PAGE.parse({}, 'graphql')).toEqual({ limit: 100, aggregateByTime: false });
    expect(FILL_PAGE.parse({ first: 2000 }, 'graphql').limit).toBe(2000);
    for (const first of [0, 2001]) {
      expect(refusal(() => FILL_PAGE.parse({ first }, 'graphql'))).toBe(
        `first: must be an integer from 1 to 2000, got ${first}`,
      );
    }
    expect(refusal(() => FILL_PAGE.parse({ after: 'x' }, 'graphql'))).toBe(
      'after: must be "<epoch_ms>:<block>:<event index>:<tid>" as a page gave it, got "x"',
    );
    expect(refusal(() => ALL_FILL_PAGE.parse({}, 'graphql'))).toMatch(/^startTime: is required, must be an integer/);
  });

  it('needs the start of a userFillsByTime window, and its order', () => {
    expect(refusal(() => USER_FILLS_BY_TIME.parse({ user }, 'info'))).toMatch(/^startTime: is required/);
    expect(refusal(() => USER_FILLS_BY_TIME.parse({ user, startTime: 2, endTime: 1 }, 'info'))).toBe(
      'startTime: must not be after endTime',
    );
    expect(USER_FILLS_BY_TIME.parse({ user: USER, startTime: 0 }, 'info')).toEqual({
      user,
      startTime: 0,
      aggregateByTime: false,
    });
  });

  it("orders a builder's revenue window", () => {
    expect(BUILDER_REVENUE.parse({ builder: USER }, 'graphql')).toEqual({ builder: user });
    expect(refusal(() => BUILDER_REVENUE.parse({ builder: user, startTime: 2, endTime: 1 }, 'graphql'))).toBe(
      'startTime: must not be after endTime',
    );
  });

  it('takes a TWAP id from 0', () => {
    expect(TWAP_SLICE_FILLS.parse({ user, twapId: 0 }, 'graphql').twapId).toBe(0);
    expect(refusal(() => TWAP_SLICE_FILLS.parse({ user, twapId: -1 }, 'graphql'))).toBe(
      'twapId: must be an integer >= 0, got -1',
    );
  });
});

describe('history pages, liquidations, states, orders', () => {
  it('pages funding 1 to 500 (default 500); the path route names the window as /info does', () => {
    expect(FUNDING_PAGE.fromQuery({ user })).toEqual({ user, limit: 500 });
    expect(refusal(() => FUNDING_PAGE.fromQuery({ user, startTime: '10', endTime: '5' }))).toBe(
      'startTime: must not be after endTime',
    );
    for (const first of [0, 501]) {
      expect(refusal(() => FUNDING_PAGE.parse({ user, first }, 'graphql'))).toBe(
        `first: must be an integer from 1 to 500, got ${first}`,
      );
    }
    expect(refusal(() => FUNDING_PAGE.parse({ user, cursor: 'x'.repeat(201) }, 'mcp'))).toMatch(
      /^cursor: must be "<time>:<block>:<coin>" as a page gave it, got "x{10}/,
    );
  });

  it('takes liquidations 1 to 500, default 100', () => {
    expect(LIQUIDATIONS.parse({ user }, 'graphql')).toEqual({ user, limit: 100 });
    expect(LIQUIDATIONS.parse({ user, limit: 500 }, 'mcp').limit).toBe(500);
    expect(refusal(() => LIQUIDATIONS.parse({ user, limit: 501 }, 'mcp'))).toBe(
      'limit: must be an integer from 1 to 500, got 501',
    );
  });

  it('takes 1 to 50 users at once, naming a bad one by its index', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `0x${i.toString(16).padStart(40, '0')}`);
    expect(CLEARINGHOUSE_STATES.parse({ users: fifty }, 'info').users).toHaveLength(50);
    for (const users of [[], [...fifty, user]]) {
      expect(refusal(() => CLEARINGHOUSE_STATES.parse({ users }, 'info'))).toMatch(
        new RegExp(`^users: must hold 1 to 50 addresses.*, got ${users.length}$`),
      );
    }
    expect(refusal(() => CLEARINGHOUSE_STATES.parse({ users: [user, '0x12'] }, 'info'))).toBe(
      'users[1]: must be a 0x address, got "0x12"',
    );
  });

  it('takes an oid as a number or digits, or a cloid', () => {
    expect(ORDER_STATUS.parse({ user, oid: 7 }, 'info').oid).toBe(7);
    expect(ORDER_STATUS.parse({ user, oid: '18446744073709551615' }, 'graphql').oid).toBe('18446744073709551615');
    expect(refusal(() => ORDER_STATUS.parse({ user, oid: 'abc' }, 'info'))).toMatch(
      /^oid: must be an order id \(an integer from 0 to 18446744073709551615, .* got "abc"$/,
    );
    expect(refusal(() => ORDER_STATUS.parse({ user, cloid: '0x1' }, 'mcp'))).toBe(
      'cloid: must be a cloid (0x followed by 32 hex digits), got "0x1"',
    );
  });
});

// The live streams (spec §6): the /ws channels read a subscription as an /info body (`type` and the keys a definition
// does not hold left aside), GraphQL subscriptions their arguments, the MCP collectors their tool input.
describe('the liquidations stream: one definition on /ws, GraphQL and MCP', () => {
  const address = (i: number) => `0x${i.toString(16).padStart(40, '0')}`;
  const fifty = Array.from({ length: 50 }, (_, i) => address(i));

  it('names the minimum notional amount_dollars on /ws, amountDollars in GraphQL and minNotional in MCP', () => {
    const sub = { type: 'liquidations', user: USER, users: [USER], amount_dollars: '1000.5', builder: USER };
    const filter = { user, users: [user], amountDollars: '1000.5', builder: user };
    expect(LIQUIDATION_STREAM.parse(sub, 'info')).toEqual(filter);
    expect(LIQUIDATION_STREAM.parse({ ...filter, builder: USER }, 'graphql')).toEqual(filter);
    expect(COLLECT_LIQUIDATIONS.parse({ users: [USER], minNotional: 250, seconds: 5 })).toEqual({
      users: [user],
      amountDollars: 250,
      seconds: 5,
    });
    expect(LIQUIDATION_STREAM.parse({ type: 'liquidations' }, 'info')).toEqual({});
  });

  it('takes at most 50 users, each a 0x address', () => {
    expect(LIQUIDATION_STREAM.parse({ users: fifty }, 'info').users).toHaveLength(50);
    expect(refusal(() => LIQUIDATION_STREAM.parse({ users: [...fifty, user] }, 'info'))).toBe(
      'users: must be a list of at most 50 addresses, got 51',
    );
    expect(refusal(() => LIQUIDATION_STREAM.parse({ users: user }, 'graphql'))).toBe(
      `users: must be a list of at most 50 addresses, got "${user}"`,
    );
    expect(refusal(() => LIQUIDATION_STREAM.parse({ users: [user, '0x12'] }, 'info'))).toBe(
      'users[1]: must be a 0x address, got "0x12"',
    );
    expect(refusal(() => LIQUIDATION_STREAM.parse({ user: 'bob' }, 'info'))).toBe(
      'user: must be a 0x address, got "bob"',
    );
    expect(refusal(() => LIQUIDATION_STREAM.parse({ builder: `${USER}0` }, 'graphql'))).toBe(
      `builder: must be a 0x address, got "${USER}0"`,
    );
  });

  it('takes an amount >= 0 as a JSON number or a decimal string', () => {
    for (const amount of [0, 12.5, '0', '1000.25']) {
      expect(LIQUIDATION_STREAM.parse({ amount_dollars: amount }, 'info').amountDollars).toBe(amount);
    }
    const rule = 'must be a number or a decimal string >= 0';
    expect(refusal(() => LIQUIDATION_STREAM.parse({ amount_dollars: -1 }, 'info'))).toBe(
      `amount_dollars: ${rule}, got -1`,
    );
    expect(refusal(() => LIQUIDATION_STREAM.parse({ amountDollars: '-0.5' }, 'graphql'))).toBe(
      `amountDollars: ${rule}, got "-0.5"`,
    );
    expect(refusal(() => LIQUIDATION_STREAM.parse({ amount_dollars: '1e3' }, 'info'))).toBe(
      `amount_dollars: ${rule}, got "1e3"`,
    );
    expect(refusal(() => COLLECT_LIQUIDATIONS.parse({ minNotional: true, seconds: 1 }))).toBe(
      `minNotional: ${rule}, got true`,
    );
  });
});

describe('the per-user streams and their collectors', () => {
  it('userFills: the user lowercased, aggregateByTime false unless given', () => {
    expect(USER_FILLS_STREAM.parse({ type: 'userFills', user: USER }, 'info')).toEqual({
      user,
      aggregateByTime: false,
    });
    expect(USER_FILLS_STREAM.parse({ user, aggregateByTime: true }, 'info').aggregateByTime).toBe(true);
    expect(refusal(() => USER_FILLS_STREAM.parse({ type: 'userFills' }, 'info'))).toBe(
      'user: is required, must be a 0x address',
    );
    expect(refusal(() => USER_FILLS_STREAM.parse({ user, aggregateByTime: 'yes' }, 'info'))).toBe(
      'aggregateByTime: must be a boolean, got "yes"',
    );
  });

  it('a collector takes 1 to 60 seconds and no field it does not know', () => {
    expect(COLLECT_USER_EVENTS.parse({ user: USER, seconds: 60 })).toEqual({ user, seconds: 60 });
    for (const seconds of [0, 61]) {
      expect(refusal(() => COLLECT_USER_EVENTS.parse({ user, seconds }))).toBe(
        `seconds: must be an integer from 1 to 60, got ${seconds}`,
      );
    }
    expect(refusal(() => COLLECT_LIQUIDATIONS.parse({}))).toBe('seconds: is required, must be an integer from 1 to 60');
    // Read as the MCP tool server reads arguments (the definition's default edge), and worded as it words them.
    expect(refusal(() => COLLECT_LIQUIDATIONS.parse({ seconds: 5, amount_dollars: 1 }))).toBe(
      'amount_dollars: not an argument of this tool',
    );
  });
});

describe('Query.user (the User entity by its address)', () => {
  const run = (address: string) =>
    graphql({ schema: accountsSchema, source: `{ user(address: "${address}") { address } }`, contextValue: {} });

  it('lowercases the address it is given', async () => {
    expect((await run(USER)).data).toEqual({ user: { address: user } });
  });

  it('refuses what is not an address, as every other edge words it', async () => {
    expect((await run('0x12')).errors?.map((e) => e.message)).toEqual(['address: must be a 0x address, got "0x12"']);
  });
});
