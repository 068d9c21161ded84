// What each capability of the EVM service takes, stated once (kit/input.ts): the REST query string, the MCP tool's
// input and the GraphQL arguments are derived from these, and every edge reads its request through them, so bounds,
// defaults, lowercasing and refusal messages are the same on each.
import { address, bool, cursor, defineInput, type InputOf, int, named, optional, time } from '../../../kit/input.ts';
import { EVM_ROWS_DEFAULT, MAX_EVM_OFFSET, MAX_EVM_ROWS } from './paging.ts';

/** `limit`/`offset` of an offset-paged list of `what` (spec §8: 1 to 1000 rows). */
const page = (what: string) => ({
  limit: int(`how many ${what} (1 to ${MAX_EVM_ROWS}, default ${EVM_ROWS_DEFAULT})`, {
    min: 1,
    max: MAX_EVM_ROWS,
    default: EVM_ROWS_DEFAULT,
  }),
  offset: int(`${what} to skip, for the next page (0 to ${MAX_EVM_OFFSET}, default 0)`, {
    min: 0,
    max: MAX_EVM_OFFSET,
    default: 0,
  }),
});

/** `startTime`/`endTime`, each inclusive and optional. */
const window = {
  startTime: optional(time('start of the window, inclusive; default no lower bound')),
  endTime: optional(time('end of the window, inclusive; default now')),
};

export const TRANSACTIONS = defineInput(
  {
    blockNumber: optional(int('only the transactions of this block number', { min: 0, max: Number.MAX_SAFE_INTEGER })),
    toAddr: optional(
      named(address('only transactions sent to this address (a contract or an account)'), { mcp: 'to', graphql: 'to' }),
    ),
    includeSystem: bool('include the system transactions HyperCore writes (bridge transfers); default false', false),
    ...window,
    ...page('transactions'),
  },
  { window: ['startTime', 'endTime'] },
);
export type TransactionsQuery = InputOf<typeof TRANSACTIONS>;

/** `"<balance_raw>:<address>"` of a page's last holder (tokens.ts holderCursor). */
export const HOLDER_CURSOR = /^(\d{1,78}):(0x[0-9a-f]{40})$/;

export const TOKEN_HOLDERS = defineInput({
  token: address("the token's contract address"),
  ...page('holders'),
  cursor: optional(
    cursor('nextCursor of the previous page, for pages deeper than offset reaches', {
      pattern: HOLDER_CURSOR.source,
      rule: 'must be "<balance_raw>:<address>" as a page gave it',
    }),
  ),
});
export type TokenHoldersInput = InputOf<typeof TOKEN_HOLDERS>;
