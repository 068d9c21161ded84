// The hip4 domain's MCP tools: questions, markets (outcomes), fills, providers, deployers and analytics, each one
// service call answered in the same rows as its /hip4 route. Arguments are camelCase as across the catalog (the
// route's question_id is questionId here), times in epoch ms; the schemas state the service's caps, which the tool
// server checks before `call` runs.

import type { McpTool } from '../../kit/domain.ts';
import {
  bucketRecord,
  deployerRecord,
  fillRecord,
  marketRecord,
  providerRecord,
  questionRecord,
} from './compat/routes.ts';
import {
  ANALYTICS,
  ANALYTICS_DEFAULT_WINDOW_MS,
  DEPLOYERS,
  DEPLOYERS_REFRESH_MS,
  FILLS,
  MAX_ANALYTICS_BUCKETS,
  OUTCOMES,
  PROVIDERS,
  QUESTIONS,
} from './service/index.ts';

const DAY_MS = 86_400_000;

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
    input: QUESTIONS.schema,
    async call(a, { services }) {
      const p = await services.hip4.questionsPage(QUESTIONS.parse(a));
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
    input: OUTCOMES.schema,
    async call(a, { services }) {
      const p = await services.hip4.outcomesPage(OUTCOMES.parse(a));
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
    input: FILLS.schema,
    async call(a, { services }) {
      const p = await services.hip4.fillsPage(FILLS.parse(a));
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
    input: PROVIDERS.schema,
    async call(a, { services }) {
      const p = await services.hip4.providersPage(PROVIDERS.parse(a));
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
    input: DEPLOYERS.schema,
    async call(a, { services }) {
      const p = await services.hip4.deployersPage(DEPLOYERS.parse(a));
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
    input: ANALYTICS.schema,
    async call(a, { services }) {
      const answer = await services.hip4.analytics(ANALYTICS.parse(a));
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
