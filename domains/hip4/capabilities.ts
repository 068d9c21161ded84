// The hip4 domain's capabilities, each declared once (kit/capability.ts): its input (service/inputs.ts), its service
// call answering a page, its record (records.ts) and its doors. The /hip4 path routes, the MCP tools, the
// subgraph's Query lists and its entities' fields (an outcome's fills, a question's outcomes, an account's fills and
// positions) are made from this list; each list pages by cursor on every door (a GraphQL connection beside each).
import type { Capabilities } from '../../kit/capability.ts';
import { capability, lookupCapability, wholeCapability } from '../../kit/capability.ts';
import type { Page } from '../../kit/page.ts';
import { HIP4_ANSWERS } from './compat/answers.ts';
import { LIVE_CAPABILITIES } from './live-capabilities.ts';
import {
  bucketRecord,
  deployerRecord,
  fillRecord,
  fillRowJson,
  marketRecord,
  providerRecord,
  questionRecord,
} from './records.ts';
import {
  AnalyticsIntervalEnum,
  AnalyticsRef,
  Hip4FillRef,
  OutcomeRef,
  PositionRef,
  ProviderRef,
  QuestionRef,
  UserRef,
  VenueRef,
} from './schema/refs.ts';
import type { Hip4Service } from './service/index.ts';
import {
  ANALYTICS,
  DEPLOYERS,
  FILLS,
  OUTCOME_ID,
  OUTCOMES,
  PROVIDERS,
  QUESTION_ID,
  QUESTIONS,
  USER,
  VENUE_NAME,
} from './service/inputs.ts';
import {
  ANALYTICS_DEFAULT_WINDOW_MS,
  DEPLOYERS_REFRESH_MS,
  MAX_ANALYTICS_BUCKETS,
  MAX_QUESTION_ID,
} from './service/limits.ts';
import type { OutcomeRow, QuestionRow } from './service/registry.ts';

const DAY_MS = 86_400_000;
const count = (what: string, key: string) => (r: Record<string, unknown>) => `${(r[key] as unknown[]).length} ${what}`;

/** The analytics `coin` of a path route: one coin id or a comma-separated list, `#` optional (`290,291`, `#290`). */
export const coinList = (csv: string): string[] => csv.split(',').map((c) => c.trim());
const COIN_LIST = { type: 'string', minLength: 1, maxLength: 1000 } as const;

/** A field of fills of a parent (an outcome's, an account's): the page's rows, sliced by `limit`. */
const FILL_LIST = {
  type: [Hip4FillRef],
  listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
  of: (page: Page<unknown>) => page.rows,
};

export const HIP4_CAPABILITIES: Capabilities<Hip4Service> = {
  prefix: '/hip4',
  list: [
    // An outcome, a question and a venue by its id or name, as the graph looks them up (GraphQL doors only: REST and
    // MCP filter the lists by them). First: the subgraph's first Query fields.
    lookupCapability('outcome', OUTCOME_ID, OutcomeRef, (hip4: Hip4Service, { outcomeId }) => hip4.outcome(outcomeId)),
    lookupCapability('question', QUESTION_ID, QuestionRef, (hip4: Hip4Service, { questionId }) =>
      hip4.question(questionId),
    ),
    lookupCapability('venue', VENUE_NAME, VenueRef, (hip4: Hip4Service, { name }) => hip4.venue(name)),
    capability({
      name: 'questions',
      input: QUESTIONS,
      page: (hip4, input) => hip4.questionsPage(input),
      record: questionRecord,
      rest: { paths: ['/questions'], answer: HIP4_ANSWERS.questions },
      mcp: {
        name: 'hip4_questions',
        title: 'HIP-4 prediction questions',
        description:
          'Prediction-market questions (HIP-4): each groups named outcomes and a fallback outcome; settled when ' +
          '`settled_named_outcomes` is non-empty. Oracle-emitted questions report venue "oracle". Filter by questionId ' +
          'or venue. Use hip4_markets for the outcomes themselves.',
        key: 'questions',
        summary: count('questions', 'questions'),
      },
      graphql: {
        type: QuestionRef,
        description: `HIP-4 questions by id; questionId filter at most ${MAX_QUESTION_ID}`,
        list: 'questions',
        connection: 'questionsConnection',
      },
    }),
    capability({
      name: 'outcomes',
      input: OUTCOMES,
      page: (hip4, input) => hip4.outcomesPage(input),
      record: marketRecord,
      rest: { paths: ['/markets', '/outcomes'], answer: HIP4_ANSWERS.markets },
      mcp: {
        name: 'hip4_markets',
        title: 'HIP-4 outcome markets',
        description:
          'Outcome markets (HIP-4): name, parsed description (class, underlying, expiry, target price), question, ' +
          'venue, deployer and fee scale, settlement, and trading totals. Each outcome trades as two coins, ' +
          '#<10*outcome_id> (side 0) and #<10*outcome_id+1> (side 1), priced 0.001 to 0.999.',
        key: 'markets',
        summary: count('outcome markets', 'markets'),
      },
      graphql: {
        type: OutcomeRef,
        description: 'HIP-4 outcomes by id',
        list: 'outcomes',
        connection: 'outcomesConnection',
        fields: [
          {
            on: QuestionRef,
            name: 'outcomes',
            type: [OutcomeRef],
            description: 'Named outcomes, then the fallback outcome',
            given: { questionId: (q: QuestionRow) => q.question_id },
            omit: ['outcomeId', 'class', 'underlying', 'venue', 'limit', 'offset', 'cursor'],
            listSize: { assumedSize: 5 },
            of: (page: Page<OutcomeRow>, _q, question: QuestionRow) =>
              [...question.named_outcomes, question.fallback_outcome].flatMap((id) =>
                page.rows.filter((o) => o.outcome_id === id),
              ),
          },
        ],
      },
    }),
    capability({
      name: 'fills',
      input: FILLS,
      page: (hip4, input) => hip4.fillsPage(input),
      record: fillRecord,
      rest: {
        paths: ['/fills'],
        answer: HIP4_ANSWERS.fills,
        text: (hip4, input, push) => hip4.eachFillTextRow(input, (row) => push(fillRowJson(row))),
        rowBytes: 512,
      },
      mcp: {
        name: 'hip4_fills',
        title: 'HIP-4 fills',
        description:
          'Fills on outcome coins, newest first, with the market name, description, venue and deployer; settlement ' +
          'fills have typeTrade "settlement". Filter by user, coin (#2901), outcomeId and time window. For totals per ' +
          'time bucket use hip4_analytics; per venue, hip4_providers.',
        key: 'fills',
        summary: count('fills', 'fills'),
      },
      graphql: {
        type: Hip4FillRef,
        description: 'HIP-4 fills, newest first',
        list: 'hip4Fills',
        connection: 'hip4FillsConnection',
        fields: [
          {
            on: OutcomeRef,
            name: 'fills',
            ...FILL_LIST,
            description: 'Fills on both sides, newest first',
            given: { outcomeId: (o: OutcomeRow) => o.outcome_id },
            omit: ['cursor', 'user', 'coin', 'startTime', 'endTime'],
          },
          {
            on: UserRef,
            name: 'hip4Fills',
            ...FILL_LIST,
            description: "The account's HIP-4 fills, newest first",
            given: { user: (u: { address: string }) => u.address },
            omit: ['cursor', 'coin'],
          },
        ],
      },
    }),
    wholeCapability({
      name: 'positions',
      input: USER,
      answer: (hip4, { user }) => hip4.positions(user),
      graphql: {
        type: [PositionRef],
        description: '',
        fields: [
          {
            on: UserRef,
            name: 'hip4Positions',
            given: { user: (u: { address: string }) => u.address },
            listSize: { assumedSize: 20 },
          },
        ],
      },
    }),
    capability({
      name: 'providers',
      input: PROVIDERS,
      page: (hip4, input) => hip4.providersPage(input),
      record: providerRecord,
      rest: { paths: ['/providers'], answer: HIP4_ANSWERS.providers },
      mcp: {
        name: 'hip4_providers',
        title: 'HIP-4 statistics per venue',
        description:
          'Per venue (market provider; "oracle" for oracle-emitted markets): markets traded, fills, volume in USDC, ' +
          'unique users, fees and last trade over an inclusive window, by volume descending. Settlement fills excluded.',
        key: 'providers',
        summary: count('venues', 'providers'),
      },
      graphql: {
        type: ProviderRef,
        description: 'Statistics per venue over an inclusive window, by volume descending',
        list: 'hip4Providers',
        connection: 'hip4ProvidersConnection',
      },
    }),
    capability({
      name: 'deployers',
      input: DEPLOYERS,
      page: (hip4, input) => hip4.deployersPage(input),
      record: deployerRecord,
      rest: { paths: ['/deployers'], answer: HIP4_ANSWERS.deployers },
      mcp: {
        name: 'hip4_deployers',
        title: 'HIP-4 deployer registry',
        description:
          'The venues and their deployers: fee scale and sub-deployer delegations ([action, [addresses]] pairs, as ' +
          `JSON text). Refreshed about every ${DEPLOYERS_REFRESH_MS / 1000} seconds.`,
        key: 'deployers',
        summary: count('deployers', 'deployers'),
      },
    }),
    capability({
      name: 'analytics',
      input: ANALYTICS,
      page: (hip4, input) => hip4.analytics(input),
      record: bucketRecord,
      envelope: (answer) => ({ status: answer.status }),
      rest: {
        paths: ['/analytics'],
        answer: HIP4_ANSWERS.analytics,
        // The coins are one comma-separated `coin` here (`290,291`, `#` optional).
        querystring: (definition) => ({
          type: 'object',
          properties: { ...(definition as { properties: object }).properties, coin: COIN_LIST },
        }),
        fields: (req) => {
          const { coin, ...rest } = req.query as { coin?: string };
          return { ...rest, coin: coin === undefined ? undefined : coinList(coin) };
        },
      },
      mcp: {
        name: 'hip4_analytics',
        title: 'HIP-4 fill analytics per time bucket',
        description:
          'Fills, volume (buy and sell), fees and unique users per 1h, 4h or 1d bucket aligned to the interval (UTC), ' +
          `oldest first, at most ${MAX_ANALYTICS_BUCKETS} rows; default window the last ${ANALYTICS_DEFAULT_WINDOW_MS / DAY_MS} days. Several coins or an ` +
          'outcomeId split the rows by coin. Settlement fills excluded.',
        summary: (r) => `${r.count} buckets (${r.status})`,
      },
      graphql: {
        type: AnalyticsRef,
        description: `Fill statistics per time bucket, oldest first; at most ${MAX_ANALYTICS_BUCKETS} rows`,
        answer: 'hip4Analytics',
        types: { interval: AnalyticsIntervalEnum },
      },
    }),
    ...LIVE_CAPABILITIES,
  ],
};
