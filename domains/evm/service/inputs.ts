// What each capability of the EVM service takes, stated once (kit/input.ts): the REST query string, the MCP tool's
// input and the GraphQL arguments are derived from these, and every edge reads its request through them, so bounds,
// defaults, lowercasing and refusal messages are the same on each.
import {
  address,
  bool,
  cursor,
  defineInput,
  type InputOf,
  int,
  list,
  named,
  oneOf,
  optional,
  text,
  time,
} from '../../../kit/input.ts';
import { FILL_ROWS_DEFAULT_LIMIT, LEDGER_EVENT_TYPES, MAX_FILL_ROWS } from '../../accounts/port.ts';
import { LEDGER_ACTION_TYPES, type LedgerActionType } from './ledger.ts';
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

/** One block by its number (GraphQL's `block`). */
export const BLOCK = defineInput({ number: int('the block number', { min: 0, max: Number.MAX_SAFE_INTEGER }) });

/** The newest blocks (GraphQL's `latestBlocks`). */
export const LATEST_BLOCKS = defineInput({ limit: int('1 to 100', { min: 1, max: 100, default: 10 }) });
export type LatestBlocksInput = InputOf<typeof LATEST_BLOCKS>;

/** One transaction by its hash, any case (GraphQL's `transaction`). */
export const TRANSACTION_HASH = defineInput({
  hash: text("the transaction's hash", {
    maxLength: 66,
    pattern: '^0x[0-9a-fA-F]{64}$',
    rule: 'must be 0x and 64 hex digits',
  }),
});

/** `"<balance_raw>:<address>"` of a page's last holder (tokens.ts holderCursor). */
export const HOLDER_CURSOR = /^(\d{1,78}):(0x[0-9a-f]{40})$/;

const token = address("the token's contract address");

/** A token's transfers as they happen (Subscription.tokenTransfers). */
export const TOKEN_TRANSFER_STREAM = defineInput({ token });

/** One token by its contract address (GraphQL's `evmToken`). */
export const EVM_TOKEN = defineInput({ address: token });

export const TOKEN_HOLDERS = defineInput({
  token,
  ...page('holders'),
  cursor: optional(
    cursor('nextCursor of the previous page, for pages deeper than offset reaches', {
      pattern: HOLDER_CURSOR.source,
      rule: 'must be "<balance_raw>:<address>" as a page gave it',
    }),
  ),
});
export type TokenHoldersInput = InputOf<typeof TOKEN_HOLDERS>;

/** A perp dex's name as the ledger writes it ("" is the native perp dex). */
const DEX_NAME_LENGTH = 32;
const ledgerDex = (what: string) =>
  optional(text(`${what}: a perp dex name, "" for the native perp dex`, { minLength: 0, maxLength: DEX_NAME_LENGTH }));
const hip3Dex = (what: string) => text(`${what}: a HIP-3 dex name ("xyz")`, { maxLength: DEX_NAME_LENGTH });

export const LEDGER_TRANSFERS = defineInput(
  {
    actionType: optional(
      oneOf(Object.keys(LEDGER_ACTION_TYPES) as LedgerActionType[], 'only transfers of this ledger action'),
    ),
    token: optional(text('only transfers of this token ("USDC")', { maxLength: 64 })),
    user: optional(address('only transfers this address sent or received')),
    sourceDex: ledgerDex('only transfers out of this dex'),
    destinationDex: ledgerDex('only transfers into this dex'),
    ...window,
    ...page('transfers'),
  },
  { window: ['startTime', 'endTime'] },
);
export type LedgerTransfersQuery = InputOf<typeof LEDGER_TRANSFERS>;

const ledgerUser = address("the user's address");

/** A user's ledger events as they happen (Subscription.userLedgerEvents). */
export const LEDGER_EVENT_STREAM = defineInput({ user: ledgerUser });

export const USER_LEDGER_EVENTS = defineInput(
  {
    user: ledgerUser,
    eventTypes: optional(
      named(
        list(
          oneOf(LEDGER_EVENT_TYPES, 'a class'),
          `only events of these classes (${LEDGER_EVENT_TYPES.join(', ')}); default all`,
          { max: LEDGER_EVENT_TYPES.length },
        ),
        { rest: 'event_type' },
      ),
    ),
    ...window,
    ...page('events'),
  },
  { window: ['startTime', 'endTime'] },
);
export type UserLedgerEventsInput = InputOf<typeof USER_LEDGER_EVENTS>;

/** Backstop principal transfers as they happen (Subscription.backstopTransfers): the filters of the stored list. */
export const BACKSTOP_TRANSFER_STREAM = defineInput({
  dex: optional(hip3Dex('only this dex')),
  signer: optional(address('only transfers signed by this address')),
  isDeposit: optional(bool('true: only deposits, false: only withdrawals; default both')),
});
export type BackstopTransferFilter = InputOf<typeof BACKSTOP_TRANSFER_STREAM>;

export const BACKSTOP_TRANSFERS = defineInput(
  {
    ...BACKSTOP_TRANSFER_STREAM.fields,
    ...window,
    ...page('transfers'),
  },
  { window: ['startTime', 'endTime'] },
);
export type BackstopTransfersQuery = InputOf<typeof BACKSTOP_TRANSFERS>;

/** The backstop health of every HIP-3 dex, or of one. */
export const BACKSTOP_HEALTH = defineInput({ dex: optional(hip3Dex('only this dex')) });

/** One HIP-3 dex's backstop health (`/evm/hip3/backstop/{dex}/health`, Dex.backstopHealth). */
export const DEX_HEALTH = defineInput({ dex: hip3Dex('the dex') });

/** One HIP-3 dex by name, for its backstop fields (GraphQL's `backstopDex`). */
export const BACKSTOP_DEX = defineInput({ name: hip3Dex('the dex') });

export const BACKSTOP_SUMMARY = defineInput(
  { dex: optional(hip3Dex('only this dex')), ...window },
  { window: ['startTime', 'endTime'] },
);
export type SummaryQuery = InputOf<typeof BACKSTOP_SUMMARY>;

/** A dex backstop's absorbed fills: `/fills/`'s filters and keyset paging (offset beside it, not both). */
export const BACKSTOP_FILLS = defineInput(
  {
    dex: hip3Dex('the dex'),
    coin: optional(text('only fills of this coin ("xyz:XYZ100")', { maxLength: 64 })),
    side: optional(oneOf(['A', 'B'] as const, 'only fills of this side: A sells (ask side), B buys (bid side)')),
    ...window,
    limit: named(
      int(`how many fills (1 to ${MAX_FILL_ROWS}, default ${FILL_ROWS_DEFAULT_LIMIT})`, {
        min: 1,
        max: MAX_FILL_ROWS,
        default: FILL_ROWS_DEFAULT_LIMIT,
      }),
      { graphql: 'first' },
    ),
    cursor: optional(cursor('nextCursor of the previous page', { maxLength: 64 })),
    offset: optional(
      int(`fills to skip (0 to ${MAX_EVM_OFFSET}), instead of a cursor`, { min: 0, max: MAX_EVM_OFFSET }),
    ),
  },
  { window: ['startTime', 'endTime'] },
);
export type BackstopFillsInput = InputOf<typeof BACKSTOP_FILLS>;
