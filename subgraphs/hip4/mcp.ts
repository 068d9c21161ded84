// The hip4 domain's MCP tools: questions, markets (outcomes), fills, providers, deployers and analytics, each one
// service call answered in the same rows as its /hip4 route. Arguments are those of the route (snake_case), times in
// epoch ms; the schemas state the service's caps, which the tool server checks before `call` runs.
import { intIn, type JsonSchema, nonEmpty, optAddress, timeMs } from '../../compat-rest/info/request-schema.ts';
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
  ANALYTICS_INTERVALS,
  type AnalyticsInterval,
  FILLS_DEFAULT_LIMIT,
  MAX_ANALYTICS_BUCKETS,
  MAX_ANALYTICS_COINS,
  MAX_HIP4_OFFSET,
  MAX_HIP4_ROWS,
  MAX_OUTCOME_ID,
  MAX_QUESTION_ID,
  PROVIDERS_DEFAULT_LIMIT,
  REGISTRY_DEFAULT_LIMIT,
} from './service/index.ts';

const tool = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties,
  additionalProperties: false,
});
const limit = (max: number, defaultValue: number): JsonSchema => ({
  type: 'integer',
  minimum: 1,
  maximum: max,
  description: `rows, default ${defaultValue}`,
});
const page = (max: number, defaultValue: number) => ({
  limit: limit(max, defaultValue),
  offset: { type: 'integer', minimum: 0, maximum: MAX_HIP4_OFFSET },
});
const window = { start: { ...timeMs, description: 'epoch ms, inclusive' }, end: timeMs };
const venue = { ...nonEmpty, description: 'a venue name, or "oracle" for oracle-emitted markets' };

// The tool server checked the arguments against `input`: each is absent or of its schema's type.
const num = (a: Record<string, unknown>, k: string) => a[k] as number | undefined;
const text = (a: Record<string, unknown>, k: string) => a[k] as string | undefined;
const pageOf = (a: Record<string, unknown>) => ({ limit: num(a, 'limit'), offset: num(a, 'offset') });
const windowOf = (a: Record<string, unknown>) => ({ startTime: num(a, 'start'), endTime: num(a, 'end') });

export const hip4Tools: readonly McpTool[] = [
  {
    name: 'hip4_questions',
    title: 'HIP-4 prediction questions',
    description:
      'Prediction-market questions (HIP-4): each groups named outcomes and a fallback outcome; settled when ' +
      '`settled_named_outcomes` is non-empty. Oracle-emitted questions report venue "oracle". Filter by question_id ' +
      'or venue. Use hip4_markets for the outcomes themselves.',
    input: tool({
      question_id: intIn(0, MAX_QUESTION_ID),
      venue,
      ...page(MAX_HIP4_ROWS, REGISTRY_DEFAULT_LIMIT),
    }),
    async call(a, { services }) {
      const rows = await services.hip4.questions({
        questionId: num(a, 'question_id'),
        venue: text(a, 'venue'),
        ...pageOf(a),
      });
      return { questions: rows.map(questionRecord) };
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
    input: tool({
      outcome_id: intIn(0, MAX_OUTCOME_ID),
      question_id: intIn(0, MAX_OUTCOME_ID),
      class: { ...nonEmpty, description: 'priceBucket, priceBinary, event, ...' },
      underlying: nonEmpty,
      venue,
      ...page(MAX_HIP4_ROWS, REGISTRY_DEFAULT_LIMIT),
    }),
    async call(a, { services }) {
      const rows = await services.hip4.outcomes({
        outcomeId: num(a, 'outcome_id'),
        questionId: num(a, 'question_id'),
        class: text(a, 'class'),
        underlying: text(a, 'underlying'),
        venue: text(a, 'venue'),
        ...pageOf(a),
      });
      return { markets: rows.map(marketRecord) };
    },
    summary: (r) => `${(r.markets as unknown[]).length} outcome markets`,
  },
  {
    name: 'hip4_fills',
    title: 'HIP-4 fills',
    description:
      'Fills on outcome coins, newest first, with the market name, description, venue and deployer; settlement ' +
      'fills have typeTrade "settlement". Filter by user, coin (#2901), outcome_id and time window.',
    input: tool({
      user: optAddress,
      coin: { type: 'string', pattern: '^#?\\d{1,15}$', description: 'an outcome coin, #2901 or 2901' },
      outcome_id: intIn(0, MAX_OUTCOME_ID),
      ...window,
      ...page(MAX_HIP4_ROWS, FILLS_DEFAULT_LIMIT),
    }),
    async call(a, { services }) {
      const rows = await services.hip4.fills({
        user: text(a, 'user') ?? undefined,
        coin: text(a, 'coin'),
        outcomeId: num(a, 'outcome_id'),
        ...windowOf(a),
        ...pageOf(a),
      });
      return { fills: rows.map(fillRecord) };
    },
    summary: (r) => `${(r.fills as unknown[]).length} fills`,
  },
  {
    name: 'hip4_providers',
    title: 'HIP-4 statistics per venue',
    description:
      'Per venue (market provider; "oracle" for oracle-emitted markets): markets traded, fills, volume in USDC, ' +
      'unique users, fees and last trade over an inclusive window, by volume descending. Settlement fills excluded.',
    input: tool({ venue, ...window, ...page(MAX_HIP4_ROWS, PROVIDERS_DEFAULT_LIMIT) }),
    async call(a, { services }) {
      const rows = await services.hip4.providers({ venue: text(a, 'venue'), ...windowOf(a), ...pageOf(a) });
      return { providers: rows.map(providerRecord) };
    },
    summary: (r) => `${(r.providers as unknown[]).length} venues`,
  },
  {
    name: 'hip4_deployers',
    title: 'HIP-4 deployer registry',
    description:
      'The venues and their deployers: fee scale and sub-deployer delegations ([action, [addresses]] pairs, as ' +
      'JSON text). Refreshed about every 10 seconds.',
    input: tool({ venue, ...page(MAX_HIP4_ROWS, REGISTRY_DEFAULT_LIMIT) }),
    async call(a, { services }) {
      const rows = await services.hip4.deployers({ venue: text(a, 'venue'), ...pageOf(a) });
      return { deployers: rows.map(deployerRecord) };
    },
    summary: (r) => `${(r.deployers as unknown[]).length} deployers`,
  },
  {
    name: 'hip4_analytics',
    title: 'HIP-4 fill analytics per time bucket',
    description:
      'Fills, volume (buy and sell), fees and unique users per 1h, 4h or 1d bucket aligned to the interval (UTC), ' +
      `oldest first, at most ${MAX_ANALYTICS_BUCKETS} rows; default window the last 7 days. Several coins or an ` +
      'outcome_id split the rows by coin. Settlement fills excluded.',
    input: tool({
      interval: { type: 'string', enum: [...ANALYTICS_INTERVALS] },
      coins: {
        type: 'array',
        items: { type: 'string', pattern: '^#?\\d{1,15}$' },
        minItems: 1,
        maxItems: MAX_ANALYTICS_COINS,
        description: 'outcome coins, # optional',
      },
      outcome_id: intIn(0, MAX_OUTCOME_ID),
      ...window,
      ...page(MAX_ANALYTICS_BUCKETS, MAX_ANALYTICS_BUCKETS),
    }),
    async call(a, { services }) {
      const answer = await services.hip4.analytics({
        interval: text(a, 'interval') as AnalyticsInterval | undefined,
        coins: a.coins as string[] | undefined,
        outcomeId: num(a, 'outcome_id'),
        ...windowOf(a),
        ...pageOf(a),
      });
      return { status: answer.status, count: answer.rows.length, data: answer.rows.map(bucketRecord) };
    },
    summary: (r) => `${r.count} buckets (${r.status})`,
  },
];
