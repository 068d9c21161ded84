// What each list and live stream of the hip4 service takes, stated once (kit/input.ts): the /hip4 query strings,
// the MCP tools' inputs, the GraphQL arguments and the /ws hip4Events parameters derive from these. A path route and GraphQL call the window `start`/`end`, MCP
// `startTime`/`endTime`; the service reads what a cursor means (an id, an offset, a fill's key).
import {
  address,
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
import { FieldError } from '../../../platform/fields.ts';
import { ANALYTICS_INTERVALS } from './fills.ts';
import {
  ANALYTICS_DEFAULT_WINDOW_MS,
  FILLS_DEFAULT_LIMIT,
  MAX_ANALYTICS_BUCKETS,
  MAX_ANALYTICS_COINS,
  MAX_HIP4_OFFSET,
  MAX_HIP4_ROWS,
  MAX_OUTCOME_ID,
  MAX_QUESTION_ID,
  PROVIDERS_DEFAULT_LIMIT,
  REGISTRY_DEFAULT_LIMIT,
} from './limits.ts';
import { SIDE_COIN_PATTERN } from './registry.ts';
import { HIP4_REGISTRY_KINDS } from './streams.ts';

const DAY_MS = 86_400_000;

/** `limit`, `offset` and `cursor` (a page's nextCursor: the next page starts after it, instead of an offset). */
const page = (what: string, defaultLimit: number, maxLimit = MAX_HIP4_ROWS) => ({
  limit: int(`how many ${what} (1 to ${maxLimit}, default ${defaultLimit})`, {
    min: 1,
    max: maxLimit,
    default: defaultLimit,
  }),
  offset: int(`${what} to skip, for the next page (0 to ${MAX_HIP4_OFFSET}, default 0)`, {
    min: 0,
    max: MAX_HIP4_OFFSET,
    default: 0,
  }),
  cursor: optional(
    cursor('the nextCursor of a page: the next page starts after it (instead of an offset)', { maxLength: 100 }),
  ),
});

/** A page starts after a cursor or at an offset, not both. */
const CURSOR_OR_OFFSET = {
  check(input: { offset: number; cursor?: string }, name: (key: 'cursor') => string) {
    if (input.cursor !== undefined && input.offset !== 0) {
      throw new FieldError(`${name('cursor')}: give a cursor or an offset, not both`);
    }
  },
};

const window = (start = 'start of the window, inclusive; default no lower bound') => ({
  startTime: optional(named(time(start), { rest: 'start', graphql: 'start' })),
  endTime: optional(named(time('end of the window, inclusive; default now'), { rest: 'end', graphql: 'end' })),
});
const WINDOW = { window: ['startTime', 'endTime'], ...CURSOR_OR_OFFSET } as const;

const venue = optional(
  text('only this venue (market provider), or "oracle" for oracle-emitted markets', { maxLength: 200 }),
);
const questionId = (max: number, what = 'only this question id') =>
  optional(int(`${what} (0 to ${max})`, { min: 0, max }));
const outcomeId = (what = 'only this outcome id (its coins are #<10*id> and #<10*id+1>)') =>
  optional(int(what, { min: 0, max: MAX_OUTCOME_ID }));
/** An outcome coin as the service parses it: "#2901" or "2901". */
const outcomeCoin = (description: string) =>
  text(description, {
    maxLength: 16,
    pattern: SIDE_COIN_PATTERN,
    rule: 'must be an outcome coin id such as #2901 or 2901',
  });

export const QUESTIONS = defineInput(
  {
    questionId: questionId(MAX_QUESTION_ID),
    venue,
    ...page('questions', REGISTRY_DEFAULT_LIMIT),
  },
  CURSOR_OR_OFFSET,
);

export const OUTCOMES = defineInput(
  {
    outcomeId: outcomeId(),
    questionId: questionId(MAX_OUTCOME_ID, 'only the outcomes of this question id'),
    class: optional(
      text('only markets of this class, as parsed from the description: priceBucket, priceBinary, event, ...', {
        maxLength: 200,
      }),
    ),
    underlying: optional(text('only markets on this underlying ("BTC")', { maxLength: 200 })),
    venue,
    ...page('markets', REGISTRY_DEFAULT_LIMIT),
  },
  CURSOR_OR_OFFSET,
);

export const FILLS = defineInput(
  {
    user: optional(address('only fills of this user')),
    coin: optional(outcomeCoin('only fills of this outcome coin: "#2901" or "2901"')),
    outcomeId: outcomeId(),
    ...window(),
    ...page('fills', FILLS_DEFAULT_LIMIT),
  },
  WINDOW,
);

/**
 * One outcome, question or venue as the graph looks it up (GraphQL's `outcome`, `question`, `venue`): an id is a
 * Postgres integer, a name is bounded as the `venue` filter is; one not known answers null. No description: the
 * arguments print as they were written by hand.
 */
export const OUTCOME_ID = defineInput({ outcomeId: int('', { min: 0, max: MAX_OUTCOME_ID }) });
export const QUESTION_ID = defineInput({ questionId: int('', { min: 0, max: MAX_OUTCOME_ID }) });
export const VENUE_NAME = defineInput({ name: text('', { maxLength: 200 }) });

/** An account alone (User.hip4Positions). */
export const USER = defineInput({ user: address('the account') });

export const PROVIDERS = defineInput({ venue, ...window(), ...page('venues', PROVIDERS_DEFAULT_LIMIT) }, WINDOW);

export const DEPLOYERS = defineInput({ venue, ...page('deployers', REGISTRY_DEFAULT_LIMIT) }, CURSOR_OR_OFFSET);

export const ANALYTICS = defineInput(
  {
    interval: oneOf(ANALYTICS_INTERVALS, 'bucket size, aligned to UTC; default 1h', '1h'),
    coins: optional(
      named(
        list(
          outcomeCoin('an outcome coin'),
          `only these outcome coins, rows split by coin ("#200" or "200"; 1 to ${MAX_ANALYTICS_COINS})`,
          { min: 1, max: MAX_ANALYTICS_COINS, rule: `must name 1 to ${MAX_ANALYTICS_COINS} coins` },
        ),
        // A path route takes them as one comma-separated `coin` (`290,291`).
        { rest: 'coin' },
      ),
    ),
    outcomeId: outcomeId('only the two coins of this outcome id, rows split by coin'),
    ...window(`start of the window, inclusive; default ${ANALYTICS_DEFAULT_WINDOW_MS / DAY_MS} days before the end`),
    ...page('buckets', MAX_ANALYTICS_BUCKETS, MAX_ANALYTICS_BUCKETS),
  },
  WINDOW,
);

// ---- live streams ----

/** HIP-4 fills per block (Subscription.hip4Fills): of one outcome, of a question's outcomes or of a venue's. */
export const FILL_STREAM = defineInput(
  {
    outcomeId: outcomeId(),
    questionId: questionId(MAX_QUESTION_ID, 'only fills of the outcomes of this question id'),
    venue,
  },
  {
    check(input, name) {
      const given = (['outcomeId', 'questionId', 'venue'] as const).filter((key) => input[key] !== undefined);
      if (given.length > 1) throw new FieldError(`${given.map(name).join(', ')}: give at most one of them`);
    },
  },
);
export type FillStreamInput = InputOf<typeof FILL_STREAM>;

/** Registry changes as ingest reads them (/ws hip4Events, Subscription.hip4Registry), of some kinds if given. */
export const REGISTRY_STREAM = defineInput({
  kinds: optional(
    list(oneOf(HIP4_REGISTRY_KINDS, 'a kind'), `only changes of these kinds (${HIP4_REGISTRY_KINDS.join(', ')})`, {
      min: 1,
      max: HIP4_REGISTRY_KINDS.length,
      rule: `must be a list of 1 to ${HIP4_REGISTRY_KINDS.length} of ${HIP4_REGISTRY_KINDS.join(', ')}`,
    }),
  ),
});
export type RegistryStreamInput = InputOf<typeof REGISTRY_STREAM>;
