// The HIP-4 records: one row of each list as REST and MCP answer it (spec §2.1, §2.3, service-details.md), and the
// fill's record as JSON text written from Postgres's text (fillRowJson), which the /hip4/fills route sends.
import type { TextRow } from '../../db/pool.ts';
import { nullableTextJson, textJson } from '../../platform/json-text.ts';
import { naiveIso } from '../../platform/naive-iso.ts';
import {
  type AnalyticsBucket,
  descriptionFields,
  FILL_COLUMN,
  type Hip4FillWithMarket,
  type OutcomeRow,
  type ProviderStats,
  type QuestionRow,
  sideCoin,
  type VenueRow,
  venueName,
} from './service/index.ts';

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
