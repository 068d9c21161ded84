// The cost table of spec §5 and §8: what a call costs in credits, on every interface (REST, /ws posts, GraphQL
// operations, MCP tool calls). A REST or /ws call, or a tool call, costs CALL_CREDITS unless stated here; a batch call
// costs per wallet. A GraphQL operation is charged what the REST calls serving the same rows cost, by the rule
// stated below (applied by router/credits.ts). Each capability that costs more names its rule from here once:
// a fastify route in its `config.credits`, an MCP tool in its `credits`, a GraphQL field in GRAPHQL_FIELD_CREDITS.
import { FieldError } from '../platform/fields.ts';

/** What a call costs unless stated otherwise. */
export const CALL_CREDITS = 1;

/**
 * A /ws subscribe costs CALL_CREDITS per coin it follows: one of `coins: [...]` or `dex` (issue 41) costs what that many
 * subscriptions of one coin cost, and counts as many in the key's rate limit.
 */
export const subscribeCredits = (coins: number): number => CALL_CREDITS * Math.max(1, coins);

/** The two batch calls (batch performance, builder external activity) cost this much per submitted wallet. */
export const CREDITS_PER_WALLET = 3;

/**
 * An export (`GET /export/<dataset>/<day>.parquet`) costs what paging the same rows over REST would: a credit per
 * EXPORT_ROWS_PER_CREDIT rows (a page's largest size), counted when it is asked for, and at least one.
 */
export const EXPORT_ROWS_PER_CREDIT = 2000;

export const exportCredits = (rows: number): number => Math.max(CALL_CREDITS, Math.ceil(rows / EXPORT_ROWS_PER_CREDIT));

/** Spec §8: a batch call takes up to this many wallets (and at least one). */
export const MAX_WALLETS_PER_CALL = 500;

/**
 * The wallet count of a batch call, refused before it is charged when out of 1 to MAX_WALLETS_PER_CALL (spec §8):
 * a FieldError naming `field` and the bounds.
 */
export function walletCount(wallets: readonly unknown[], field = 'addresses'): number {
  if (wallets.length < 1 || wallets.length > MAX_WALLETS_PER_CALL) {
    throw new FieldError(`${field}: must hold 1 to ${MAX_WALLETS_PER_CALL} addresses, got ${wallets.length}`);
  }
  return wallets.length;
}

/** A batch call's cost: CREDITS_PER_WALLET per wallet submitted (a malformed list counts as one call). */
export function perWalletCredits(wallets: unknown): number {
  return Array.isArray(wallets) ? CREDITS_PER_WALLET * Math.max(1, wallets.length) : CALL_CREDITS;
}

// The rule that makes a GraphQL operation cost what REST costs for the same rows. A REST call reads one thing (an
// account's state, a market's book, one page of fills) for CALL_CREDITS; so does each **call** in an operation:
//
// - a root field (each alias of it: `a: allMids b: allMids` are two calls), and any field that takes arguments (a
//   page `fills(first: 2000)`, a window `candles(...)`, a lookup `block(number)`, `book(nSigFigs)`), costs
//   CALL_CREDITS each time it runs; a field without arguments is part of its parent's call;
// - a call that returns one object (a lookup such as `user(address)` or `market(coin)`) costs nothing itself when
//   calls inside it are charged: `user(address: A) { fills(first: 2000) }` is the one REST `userFills` call;
// - a page costs one call whatever its size: each paged field's bound is its domain service's, never above its
//   REST call's (2 000 fills at most either way; 2 000 orders where `historicalOrders` takes 5 000);
// - a field of GRAPHQL_FIELD_CREDITS costs its per-wallet price instead (walletCount bounds it);
// - a call below a list runs once per element the list can hold: its `@listSize` (the page size argument, else the
//   assumed size the subgraph schema declares), or for a batch field its wallet count;
// - every aliased and fragment-spread occurrence runs, and is charged; `@skip`/`@include` are honoured;
// - an operation costs at least CALL_CREDITS.
//
// Refused input costs nothing: an operation whose variables do not coerce is charged 0 (it does not run), and a
// batch field outside 1 to MAX_WALLETS_PER_CALL wallets is answered 400 before any charge.

/**
 * GraphQL fields priced per wallet: `Type.field` → the argument whose list is charged CREDITS_PER_WALLET a wallet,
 * as the REST call of the same wallets (`POST /users/batch/performance`, `POST /builders/{b}/external-activity`).
 */
export const GRAPHQL_FIELD_CREDITS: Readonly<Record<string, { perWalletArg: string }>> = {
  'Query.batchPerformance': { perWalletArg: 'addresses' },
  // Reached through Query.builder (router/credits.ts finds it with the supergraph's types).
  'Builder.externalActivity': { perWalletArg: 'addresses' },
};

/** A /ws replay (compat-rest/ws/resume.ts) costs this many credits per started block of minutes of data replayed. */
export const REPLAY_MINUTES_PER_CREDIT = 10;

/** A replay's window: at most a day of data, at 1× to 500× its own pace. */
export const REPLAY_MAX_MS = 24 * 3_600_000;
export const REPLAY_SPEED = { min: 1, max: 500 } as const;

/** A replay of `windowMs` of data: 1 credit per REPLAY_MINUTES_PER_CREDIT minutes started (at least 1). */
export function replayCredits(windowMs: number): number {
  return Math.max(1, Math.ceil(windowMs / (REPLAY_MINUTES_PER_CREDIT * 60_000)));
}

/**
 * GraphQL's replay subscriptions (kit/replay-fields.ts): each costs what the /ws replay of its window costs,
 * replayCredits(end - start), whatever it selects (router/credits.ts); a window the field refuses costs nothing.
 */
export const GRAPHQL_REPLAY_FIELDS: ReadonlySet<string> = new Set(
  [
    'userFillsReplay',
    'userFundingsReplay',
    'userNonFundingLedgerUpdatesReplay',
    'orderUpdatesReplay',
    'userEventsReplay',
    'liquidationsReplay',
    'tradesReplay',
    'candleReplay',
    'l2BookReplay',
  ].map((field) => `Subscription.${field}`),
);
