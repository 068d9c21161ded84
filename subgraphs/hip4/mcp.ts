// The hip4 domain's MCP tools: questions, markets (outcomes), fills, providers, deployers and analytics, each one
// service call answered in the same rows as its /hip4 route. Arguments are camelCase as across the catalog (the
// route's question_id is questionId here), times in epoch ms; the schemas state the service's caps, which the tool
// server checks before `call` runs.

import {
  addressArg,
  described,
  enumArg,
  intArg,
  pageArgs,
  textArg,
  toolInput,
  windowArgs,
} from '../../kit/mcp-tool.ts';
import { windowOf } from '../../kit/request-schema.ts';
import type { McpTool } from '../domain.ts';
import {
  bucketRecord,
  deployerRecord,
  fillRecord,
  marketRecord,
  providerRecord,
  questionRecord,
} from './compat/routes.ts';
import {
  ANALYTICS_DEFAULT_WINDOW_MS,
  ANALYTICS_INTERVALS,
  type AnalyticsInterval,
  DEPLOYERS_REFRESH_MS,
  FILLS_DEFAULT_LIMIT,
  MAX_ANALYTICS_BUCKETS,
  MAX_ANALYTICS_COINS,
  MAX_HIP4_OFFSET,
  MAX_HIP4_ROWS,
  MAX_OUTCOME_ID,
  MAX_QUESTION_ID,
  PROVIDERS_DEFAULT_LIMIT,
  REGISTRY_DEFAULT_LIMIT,
  SIDE_COIN_PATTERN,
} from './service/index.ts';

const DAY_MS = 86_400_000;

const page = (what: string, defaultLimit: number, maxLimit = MAX_HIP4_ROWS) => ({
  ...pageArgs(what, { maxLimit, defaultLimit, maxOffset: MAX_HIP4_OFFSET }),
  cursor: textArg('the nextCursor of a page: the next page starts after it (instead of an offset)'),
});
const window = (start = 'start of the window, inclusive; default no lower bound') =>
  windowArgs(start, 'end of the window, inclusive; default now');
const venue = textArg('only this venue (market provider), or "oracle" for oracle-emitted markets');
const questionId = intArg(0, MAX_QUESTION_ID, `only this question id (0 to ${MAX_QUESTION_ID})`);
const outcomeId = intArg(0, MAX_OUTCOME_ID, 'only this outcome id (its coins are #<10*id> and #<10*id+1>)');
/** An outcome coin as the service parses it (registry.ts): "#2901" or "2901". */
const OUTCOME_COIN = { type: 'string', pattern: SIDE_COIN_PATTERN };

// The tool server checked the arguments against `input`: each is absent or of its schema's type.
const num = (a: Record<string, unknown>, k: string) => a[k] as number | undefined;
const text = (a: Record<string, unknown>, k: string) => a[k] as string | undefined;
const pageOf = (a: Record<string, unknown>) => ({
  limit: num(a, 'limit'),
  offset: num(a, 'offset'),
  cursor: text(a, 'cursor'),
});
/** A page's paging as the routes' X-Has-More and X-Next-Cursor say it. */
const paging = (p: { hasMore: boolean; nextCursor: string | null }) => ({
  hasMore: p.hasMore,
  nextCursor: p.nextCursor,
});

export const hip4Tools: readonly McpTool[] = [
  {
    name: 'hip4_questions',
    title: 'HIP-4 prediction questions',
    description:
      'Prediction-market questions (HIP-4): each groups named outcomes and a fallback outcome; settled when ' +
      '`settled_named_outcomes` is non-empty. Oracle-emitted questions report venue "oracle". Filter by questionId ' +
      'or venue. Use hip4_markets for the outcomes themselves.',
    input: toolInput({ questionId, venue, ...page('questions', REGISTRY_DEFAULT_LIMIT) }),
    async call(a, { services }) {
      const p = await services.hip4.questionsPage({
        questionId: num(a, 'questionId'),
        venue: text(a, 'venue'),
        ...pageOf(a),
      });
      return { questions: p.rows.map(questionRecord), ...paging(p) };
    },
    summary: (r) => `${(r.questions as unknown[]).length} questions`,
  },
  {
    name: 'hip4_markets',
    title: 'HIP-4 outcome markets',
    description:
      'Outcome markets (HIP-4): name, parsed description (class, underlying, expiry, target price), question, ' +
      'venue, deployer and fee scale, settlement, and trading totals. Each outcome trades as two coins, ' +
      '#<10*outcome_id> (side 0) and #<10*outcome_id+1> (side 1), priced 0.001 to 0.999.',
    input: toolInput({
      outcomeId,
      questionId: intArg(0, MAX_OUTCOME_ID, 'only the outcomes of this question id'),
      class: textArg(
        'only markets of this class, as parsed from the description: priceBucket, priceBinary, event, ...',
      ),
      underlying: textArg('only markets on this underlying ("BTC")'),
      venue,
      ...page('markets', REGISTRY_DEFAULT_LIMIT),
    }),
    async call(a, { services }) {
      const p = await services.hip4.outcomesPage({
        outcomeId: num(a, 'outcomeId'),
        questionId: num(a, 'questionId'),
        class: text(a, 'class'),
        underlying: text(a, 'underlying'),
        venue: text(a, 'venue'),
        ...pageOf(a),
      });
      return { markets: p.rows.map(marketRecord), ...paging(p) };
    },
    summary: (r) => `${(r.markets as unknown[]).length} outcome markets`,
  },
  {
    name: 'hip4_fills',
    title: 'HIP-4 fills',
    description:
      'Fills on outcome coins, newest first, with the market name, description, venue and deployer; settlement ' +
      'fills have typeTrade "settlement". Filter by user, coin (#2901), outcomeId and time window. For totals per ' +
      'time bucket use hip4_analytics; per venue, hip4_providers.',
    input: toolInput({
      user: addressArg('only fills of this user'),
      coin: described(OUTCOME_COIN, 'only fills of this outcome coin: "#2901" or "2901"'),
      outcomeId,
      ...window(),
      ...page('fills', FILLS_DEFAULT_LIMIT),
    }),
    async call(a, { services }) {
      const p = await services.hip4.fillsPage({
        user: text(a, 'user') ?? undefined,
        coin: text(a, 'coin'),
        outcomeId: num(a, 'outcomeId'),
        ...windowOf(a),
        ...pageOf(a),
      });
      return { fills: p.rows.map(fillRecord), ...paging(p) };
    },
    summary: (r) => `${(r.fills as unknown[]).length} fills`,
  },
  {
    name: 'hip4_providers',
    title: 'HIP-4 statistics per venue',
    description:
      'Per venue (market provider; "oracle" for oracle-emitted markets): markets traded, fills, volume in USDC, ' +
      'unique users, fees and last trade over an inclusive window, by volume descending. Settlement fills excluded.',
    input: toolInput({ venue, ...window(), ...page('venues', PROVIDERS_DEFAULT_LIMIT) }),
    async call(a, { services }) {
      const p = await services.hip4.providersPage({ venue: text(a, 'venue'), ...windowOf(a), ...pageOf(a) });
      return { providers: p.rows.map(providerRecord), ...paging(p) };
    },
    summary: (r) => `${(r.providers as unknown[]).length} venues`,
  },
  {
    name: 'hip4_deployers',
    title: 'HIP-4 deployer registry',
    description:
      'The venues and their deployers: fee scale and sub-deployer delegations ([action, [addresses]] pairs, as ' +
      `JSON text). Refreshed about every ${DEPLOYERS_REFRESH_MS / 1000} seconds.`,
    input: toolInput({ venue, ...page('deployers', REGISTRY_DEFAULT_LIMIT) }),
    async call(a, { services }) {
      const p = await services.hip4.deployersPage({ venue: text(a, 'venue'), ...pageOf(a) });
      return { deployers: p.rows.map(deployerRecord), ...paging(p) };
    },
    summary: (r) => `${(r.deployers as unknown[]).length} deployers`,
  },
  {
    name: 'hip4_analytics',
    title: 'HIP-4 fill analytics per time bucket',
    description:
      'Fills, volume (buy and sell), fees and unique users per 1h, 4h or 1d bucket aligned to the interval (UTC), ' +
      `oldest first, at most ${MAX_ANALYTICS_BUCKETS} rows; default window the last ${ANALYTICS_DEFAULT_WINDOW_MS / DAY_MS} days. Several coins or an ` +
      'outcomeId split the rows by coin. Settlement fills excluded.',
    input: toolInput({
      interval: enumArg(ANALYTICS_INTERVALS, 'bucket size, aligned to UTC; default 1h'),
      coins: described(
        { type: 'array', items: OUTCOME_COIN, minItems: 1, maxItems: MAX_ANALYTICS_COINS },
        `only these outcome coins, rows split by coin ("#200" or "200"; 1 to ${MAX_ANALYTICS_COINS})`,
      ),
      outcomeId: described(outcomeId, 'only the two coins of this outcome id, rows split by coin'),
      ...window(`start of the window, inclusive; default ${ANALYTICS_DEFAULT_WINDOW_MS / DAY_MS} days before the end`),
      ...page('buckets', MAX_ANALYTICS_BUCKETS, MAX_ANALYTICS_BUCKETS),
    }),
    async call(a, { services }) {
      const answer = await services.hip4.analytics({
        interval: text(a, 'interval') as AnalyticsInterval | undefined,
        coins: a.coins as string[] | undefined,
        outcomeId: num(a, 'outcomeId'),
        ...windowOf(a),
        ...pageOf(a),
      });
      return {
        status: answer.status,
        count: answer.rows.length,
        data: answer.rows.map(bucketRecord),
        ...paging(answer),
      };
    },
    summary: (r) => `${r.count} buckets (${r.status})`,
  },
];
