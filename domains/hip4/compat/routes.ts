// /hip4/*: the HIP-4 registry, fills and statistics in the reference's shapes (spec §2.1, §2.3, §4.3;
// service-details.md): bare arrays of rows, and the analytics envelope `{status, count, data}`. Caps and defaults
// are the service's; the query schemas state them so that a value over a cap is a 400 naming the parameter.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TextRow } from '../../../db/pool.ts';
import type { RouteAnswer } from '../../../kit/answers.ts';
import { pagingHeaders } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { routeInput } from '../../../kit/route-input.ts';
import { JsonArrayWriter, jsonBytes, nullableTextJson, textJson } from '../../../platform/json-text.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import {
  ANALYTICS,
  type AnalyticsBucket,
  DEPLOYERS,
  descriptionFields,
  FILL_COLUMN,
  FILLS,
  type Hip4FillWithMarket,
  OUTCOMES,
  type OutcomeRow,
  PROVIDERS,
  type ProviderStats,
  QUESTIONS,
  type QuestionRow,
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

/** A route's options: its query string (from the list's input definition) and what it answers (for OpenAPI). */
const query = (answer: RouteAnswer, querystring: Readonly<Record<string, unknown>>, input?: RouteInput) => ({
  schema: { querystring, answer },
  ...(input ? { config: input.config } : {}),
});

/** What the route options need of a routeInput (kit/route-input.ts): it reads the input before the charge. */
type RouteInput = { config: { input: (request: FastifyRequest) => unknown } };

// Each list reads its input definition before the call is charged (kit/route-input.ts).
const questionsInput = routeInput(QUESTIONS);
const outcomesInput = routeInput(OUTCOMES);
const fillsInput = routeInput(FILLS);
const providersInput = routeInput(PROVIDERS);
const deployersInput = routeInput(DEPLOYERS);
/** The coins are one comma-separated `coin` here (`290,291`, `#` optional). */
const analyticsInput = routeInput(ANALYTICS, (req) => {
  const { coin, ...rest } = req.query as { coin?: string };
  return { ...rest, coin: coin === undefined ? undefined : coinList(coin) };
});

type Query = { Querystring: Record<string, unknown> };

/**
 * A large answer (up to 2000 buckets) as JSON bytes written item by item (platform/json-text.ts): about twice as fast
 * as fastify's stringify of the whole, whose long string it then encodes again.
 */
function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.type(JSON_TYPE).send(jsonBytes(body));
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A list's page as the bare array's headers say it (spec §4.1's paging headers): X-Has-More, and X-Next-Cursor to
 * send back as `cursor` for the next page.
 */
function paged<T>(reply: FastifyReply, page: { hasMore: boolean; nextCursor: string | null }, rows: T): T {
  reply.headers(pagingHeaders(page));
  return rows;
}
/** The analytics `coin`: one coin id or a comma-separated list, `#` optional (`290,291`, `#290`). */
export const coinList = (csv: string): string[] => csv.split(',').map((c) => c.trim());
const COIN_LIST = { type: 'string', minLength: 1, maxLength: 1000 } as const;

export const hip4Routes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { hip4 } = services;

  app.get<Query>(
    '/questions',
    query(HIP4_ANSWERS.questions, questionsInput.querystring(), questionsInput),
    async (req, reply) => {
      const page = await hip4.questionsPage(questionsInput.of(req));
      return paged(reply, page, page.rows.map(questionRecord));
    },
  );

  const marketsRoute = query(HIP4_ANSWERS.markets, outcomesInput.querystring(), outcomesInput);
  for (const path of ['/markets', '/outcomes']) {
    app.get<Query>(path, marketsRoute, async (req, reply) => {
      const page = await hip4.outcomesPage(outcomesInput.of(req));
      return paged(reply, page, page.rows.map(marketRecord));
    });
  }

  app.get<Query>('/fills', query(HIP4_ANSWERS.fills, fillsInput.querystring(), fillsInput), async (req, reply) => {
    const input = fillsInput.of(req);
    const json = new JsonArrayWriter(input.limit * 512);
    const page = await hip4.eachFillTextRow(input, (row) => json.push(fillRowJson(row)));
    return reply.headers(pagingHeaders(page)).type(JSON_TYPE).send(json.end());
  });

  app.get<Query>(
    '/providers',
    query(HIP4_ANSWERS.providers, providersInput.querystring(), providersInput),
    async (req, reply) => {
      const page = await hip4.providersPage(providersInput.of(req));
      return paged(reply, page, page.rows.map(providerRecord));
    },
  );

  app.get<Query>(
    '/deployers',
    query(HIP4_ANSWERS.deployers, deployersInput.querystring(), deployersInput),
    async (req, reply) => {
      const page = await hip4.deployersPage(deployersInput.of(req));
      return paged(reply, page, page.rows.map(deployerRecord));
    },
  );

  const { properties } = analyticsInput.querystring(['coins']) as { properties: Record<string, unknown> };
  const analyticsQuery = { type: 'object', properties: { ...properties, coin: COIN_LIST } };
  app.get<Query>('/analytics', query(HIP4_ANSWERS.analytics, analyticsQuery, analyticsInput), async (req, reply) => {
    const answer = await hip4.analytics(analyticsInput.of(req));
    reply.headers(pagingHeaders(answer));
    return sendJson(reply, {
      status: answer.status,
      count: answer.rows.length,
      data: answer.rows.map(bucketRecord),
    });
  });
};
