// /hip4/*: the HIP-4 registry, fills and statistics in the reference's shapes (spec §2.1, §2.3, §4.3;
// service-details.md): bare arrays of rows, and the analytics envelope `{status, count, data}`. Caps and defaults
// are the service's; the query schemas state them so that a value over a cap is a 400 naming the parameter.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { TextRow } from '../../../db/pool.ts';
import type { RouteAnswer } from '../../../kit/answers.ts';
import { pagingHeaders } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { addressSchema, limitSchema, timeParam, timeParamSchema } from '../../../kit/params.ts';
import { JsonArrayWriter, jsonBytes, nullableTextJson, textJson } from '../../../platform/json-text.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import {
  ANALYTICS_INTERVALS,
  type AnalyticsBucket,
  type AnalyticsInterval,
  descriptionFields,
  FILL_COLUMN,
  FILLS_DEFAULT_LIMIT,
  type Hip4FillWithMarket,
  MAX_ANALYTICS_BUCKETS,
  MAX_HIP4_OFFSET,
  MAX_HIP4_ROWS,
  MAX_OUTCOME_ID,
  MAX_QUESTION_ID,
  type OutcomeRow,
  PROVIDERS_DEFAULT_LIMIT,
  type ProviderStats,
  type QuestionRow,
  REGISTRY_DEFAULT_LIMIT,
  SIDE_COIN_PATTERN,
  sideCoin,
  type VenueRow,
  venueName,
} from '../service/index.ts';
import { HIP4_ANSWERS } from './answers.ts';

// ---- rows ----

/** `2026-11-22 07:00:00.123`: the questions' `updated_at` form (spec §2.3). */
const spacedTime = (ms: number) => naiveIso(ms).replace('T', ' ');

export const questionRecord = (q: QuestionRow) => ({
  question_id: q.question_id,
  name: q.name,
  description: q.description,
  fallback_outcome: q.fallback_outcome,
  named_outcomes: q.named_outcomes,
  settled_named_outcomes: q.settled_named_outcomes,
  updated_at: spacedTime(q.updated_at),
  venue: venueName(q.venue),
  deployer: q.deployer,
});

export function marketRecord(o: OutcomeRow) {
  const d = descriptionFields(o.description);
  return {
    outcome_id: o.outcome_id,
    coin: sideCoin(o.outcome_id, 0),
    name: o.name,
    description: o.description,
    class: d.class ?? null,
    underlying: d.underlying ?? null,
    expiry: d.expiry ?? null,
    target_price: d.targetPrice ?? null,
    period: d.period ?? null,
    side_specs: JSON.stringify(o.side_specs),
    question_id: o.question_id,
    quote_token: o.quote_token,
    block_time: naiveIso(o.block_time),
    settled: o.settled ? 1 : 0,
    settle_fraction: o.settle_fraction,
    question_name: o.question_name,
    question_description: o.question_description,
    total_fills: o.total_fills,
    total_volume: o.total_volume,
    unique_users: o.unique_users,
    venue: o.venue,
    deployer: o.venue ? o.deployer : '',
    deployer_fee_scale: o.fee_scale ?? '0',
  };
}

export const fillRecord = (f: Hip4FillWithMarket) => ({
  user: f.address,
  coin: f.coin,
  outcome_id: f.outcome_id,
  px: f.px,
  sz: f.sz,
  side: f.side,
  time_ms: f.time,
  dir: f.dir,
  closedPnl: f.closed_pnl,
  hash: f.hash,
  oid: f.oid,
  tid: f.tid,
  fee: f.fee,
  feeToken: f.fee_token,
  // Outcome fees are paid in the quote token (USDH), which the exchange holds at par with USDC.
  fee_usdc: f.fee,
  typeTrade: f.is_settlement ? 'settlement' : f.crossed ? 'taker' : 'maker',
  market_name: f.market_name,
  market_description: f.market_description,
  venue: f.venue,
  deployer: f.deployer,
});

const C = FILL_COLUMN;

/**
 * fillRecord's JSON, written from Postgres's text (the service's eachFillTextRow): no value parsed, no object per
 * row. Integer columns are JSON numbers as Postgres prints them.
 */
export function fillRowJson(r: TextRow): string {
  const typeTrade = r[C.is_settlement] === 't' ? 'settlement' : r[C.crossed] === 't' ? 'taker' : 'maker';
  return (
    `{"user":${textJson(r, C.address)},"coin":${textJson(r, C.coin)},"outcome_id":${r[C.outcome_id]},` +
    `"px":${textJson(r, C.px)},"sz":${textJson(r, C.sz)},"side":${textJson(r, C.side)},"time_ms":${r[C.time]},` +
    `"dir":${textJson(r, C.dir)},"closedPnl":${textJson(r, C.closed_pnl)},"hash":${textJson(r, C.hash)},` +
    `"oid":${r[C.oid]},"tid":${r[C.tid]},"fee":${textJson(r, C.fee)},"feeToken":${textJson(r, C.fee_token)},` +
    `"fee_usdc":${textJson(r, C.fee)},"typeTrade":"${typeTrade}","market_name":${nullableTextJson(r, C.market_name)},` +
    `"market_description":${nullableTextJson(r, C.market_description)},"venue":${textJson(r, C.venue)},` +
    `"deployer":${textJson(r, C.deployer)}}`
  );
}

export const providerRecord = (p: ProviderStats) => ({ ...p, last_trade: naiveIso(p.last_trade) });

export const deployerRecord = (v: VenueRow) => ({
  deployer: v.deployer,
  venue: v.venue,
  fee_scale: v.fee_scale,
  sub_deployers: JSON.stringify(v.sub_deployers),
  updated_at: naiveIso(v.updated_at),
});

/** `2026-11-22T07:00:00`: a bucket's start, naive ISO without milliseconds (spec §2.3). */
export const bucketRecord = ({ bucket, ...rest }: AnalyticsBucket) => ({
  bucket: naiveIso(bucket).slice(0, 19),
  ...rest,
});

// ---- parameters ----

const idSchema = (max: number) => ({ type: 'integer', minimum: 0, maximum: max }) as const;
const offsetSchema = { type: 'integer', minimum: 0, maximum: MAX_HIP4_OFFSET, default: 0 } as const;
/** A page: `limit` (up to `max`), `offset`, or `cursor` (a page's X-Next-Cursor, which the service reads). */
const pageSchema = (max: number, defaultLimit: number) => ({
  limit: limitSchema(max, defaultLimit),
  offset: offsetSchema,
  cursor: { type: 'string', minLength: 1, maxLength: 100 },
});
const textSchema = { type: 'string', minLength: 1, maxLength: 200 } as const;
/** `start`/`end`: ISO (naive = UTC) or epoch ms, read by timeParam. */
const windowSchema = { start: timeParamSchema, end: timeParamSchema } as const;

/**
 * A route's options: its query string's properties (fastify validates them and applies their defaults) and what it
 * answers (for the OpenAPI document).
 */
const query = (answer: RouteAnswer, properties: Record<string, unknown>) => ({
  schema: { querystring: { type: 'object', properties }, answer },
});

/**
 * A large answer (up to 2000 buckets) as JSON bytes written item by item (platform/json-text.ts): about twice as fast
 * as fastify's stringify of the whole, whose long string it then encodes again.
 */
function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.type(JSON_TYPE).send(jsonBytes(body));
}

const JSON_TYPE = 'application/json; charset=utf-8';

interface Page {
  limit: number;
  offset: number;
  cursor?: string;
}

/**
 * A list's page as the bare array's headers say it (spec §4.1's paging headers): X-Has-More, and X-Next-Cursor to
 * send back as `cursor` for the next page.
 */
function paged<T>(reply: FastifyReply, page: { hasMore: boolean; nextCursor: string | null }, rows: T): T {
  reply.headers(pagingHeaders(page));
  return rows;
}
interface Window {
  start?: string;
  end?: string;
}

const pageQuery = (q: Page) => ({ limit: q.limit, offset: q.offset, cursor: q.cursor });

const window = (q: Window) => ({ startTime: timeParam(q.start, 'start'), endTime: timeParam(q.end, 'end') });

/** The analytics `coin`: one coin id or a comma-separated list, `#` optional (`290,291`, `#290`). */
export const coinList = (csv: string): string[] => csv.split(',').map((c) => c.trim());

export const hip4Routes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { hip4 } = services;

  app.get<{ Querystring: Page & { question_id?: number; venue?: string } }>(
    '/questions',
    query(HIP4_ANSWERS.questions, {
      question_id: idSchema(MAX_QUESTION_ID),
      venue: textSchema,
      ...pageSchema(MAX_HIP4_ROWS, REGISTRY_DEFAULT_LIMIT),
    }),
    async (req, reply) => {
      const q = req.query;
      const page = await hip4.questionsPage({
        questionId: q.question_id,
        venue: q.venue,
        ...pageQuery(q),
      });
      return paged(reply, page, page.rows.map(questionRecord));
    },
  );

  type MarketsQuery = Page & {
    outcome_id?: number;
    question_id?: number;
    class?: string;
    underlying?: string;
    venue?: string;
  };
  const marketsRoute = query(HIP4_ANSWERS.markets, {
    outcome_id: idSchema(MAX_OUTCOME_ID),
    question_id: idSchema(MAX_OUTCOME_ID),
    class: textSchema,
    underlying: textSchema,
    venue: textSchema,
    ...pageSchema(MAX_HIP4_ROWS, REGISTRY_DEFAULT_LIMIT),
  });
  for (const path of ['/markets', '/outcomes']) {
    app.get<{ Querystring: MarketsQuery }>(path, marketsRoute, async (req, reply) => {
      const q = req.query;
      const page = await hip4.outcomesPage({
        outcomeId: q.outcome_id,
        questionId: q.question_id,
        class: q.class,
        underlying: q.underlying,
        venue: q.venue,
        ...pageQuery(q),
      });
      return paged(reply, page, page.rows.map(marketRecord));
    });
  }

  app.get<{ Querystring: Page & Window & { user?: string; coin?: string; outcome_id?: number } }>(
    '/fills',
    query(HIP4_ANSWERS.fills, {
      ...windowSchema,
      user: addressSchema,
      coin: { type: 'string', pattern: SIDE_COIN_PATTERN },
      outcome_id: idSchema(MAX_OUTCOME_ID),
      ...pageSchema(MAX_HIP4_ROWS, FILLS_DEFAULT_LIMIT),
    }),
    async (req, reply) => {
      const q = req.query;
      const json = new JsonArrayWriter(q.limit * 512);
      const page = await hip4.eachFillTextRow(
        { user: q.user, coin: q.coin, outcomeId: q.outcome_id, ...window(q), ...pageQuery(q) },
        (row) => json.push(fillRowJson(row)),
      );
      return reply.headers(pagingHeaders(page)).type(JSON_TYPE).send(json.end());
    },
  );

  app.get<{ Querystring: Page & Window & { venue?: string } }>(
    '/providers',
    query(HIP4_ANSWERS.providers, {
      ...windowSchema,
      venue: textSchema,
      ...pageSchema(MAX_HIP4_ROWS, PROVIDERS_DEFAULT_LIMIT),
    }),
    async (req, reply) => {
      const q = req.query;
      const page = await hip4.providersPage({ venue: q.venue, ...window(q), ...pageQuery(q) });
      return paged(reply, page, page.rows.map(providerRecord));
    },
  );

  app.get<{ Querystring: Page & { venue?: string } }>(
    '/deployers',
    query(HIP4_ANSWERS.deployers, {
      venue: textSchema,
      ...pageSchema(MAX_HIP4_ROWS, REGISTRY_DEFAULT_LIMIT),
    }),
    async (req, reply) => {
      const q = req.query;
      const page = await hip4.deployersPage({ venue: q.venue, ...pageQuery(q) });
      return paged(reply, page, page.rows.map(deployerRecord));
    },
  );

  app.get<{ Querystring: Page & Window & { interval: AnalyticsInterval; coin?: string; outcome_id?: number } }>(
    '/analytics',
    query(HIP4_ANSWERS.analytics, {
      ...windowSchema,
      interval: { type: 'string', enum: ANALYTICS_INTERVALS, default: '1h' },
      coin: { type: 'string', minLength: 1, maxLength: 1000 },
      outcome_id: idSchema(MAX_OUTCOME_ID),
      ...pageSchema(MAX_ANALYTICS_BUCKETS, MAX_ANALYTICS_BUCKETS),
    }),
    async (req, reply) => {
      const q = req.query;
      const answer = await hip4.analytics({
        interval: q.interval,
        coins: q.coin === undefined ? undefined : coinList(q.coin),
        outcomeId: q.outcome_id,
        ...window(q),
        ...pageQuery(q),
      });
      reply.headers(pagingHeaders(answer));
      return sendJson(reply, {
        status: answer.status,
        count: answer.rows.length,
        data: answer.rows.map(bucketRecord),
      });
    },
  );
};
