// The HIP-4 records: one row of each list as REST and MCP answer it (spec §2.1, §2.3, service-details.md), each
// described once (kit/record-fields.ts): per field the columns of the service's row it is read from and its JSON
// Schema. From each description: the record function (`questionRecord`...), its JSON Schema, which the OpenAPI
// document publishes (compat/answers.ts), and for the fill its JSON text written from Postgres's text (fillRowJson),
// which the /hip4/fills route sends. Money and sizes are decimal strings; the analytics buckets' sums are JSON
// numbers, as spec §2.3 shows them.
import { naiveTime } from '../../kit/answers.ts';
import { describeRecord } from '../../kit/record-fields.ts';
import type { JsonSchema } from '../../kit/request-schema.ts';
import * as R from '../../kit/response-schema.ts';
import type { TextRow } from '../../platform/json-text.ts';
import { naiveIso } from '../../platform/naive-iso.ts';
import { type AnalyticsBucket, FILL_COLUMN, type Hip4FillWithMarket, type ProviderStats } from './service/fills.ts';
import {
  descriptionFields,
  type OutcomeRow,
  type QuestionRow,
  sideCoin,
  type VenueRow,
  venueName,
} from './service/registry.ts';

const text = R.orNull(R.str);
const num: JsonSchema = { type: 'number' };

// ---- questions ----

/** `2026-11-22 07:00:00.123`: the questions' `updated_at` form (spec §2.3). */
const spacedTime = (ms: number) => naiveIso(ms).replace('T', ' ');

export const QUESTION = describeRecord<QuestionRow>()({
  question_id: { columns: ['question_id'], schema: R.int },
  name: { columns: ['name'], schema: R.str },
  description: { columns: ['description'], schema: R.str },
  fallback_outcome: { columns: ['fallback_outcome'], schema: R.int },
  named_outcomes: { columns: ['named_outcomes'], schema: R.list(R.int) },
  settled_named_outcomes: { columns: ['settled_named_outcomes'], schema: R.list(R.int) },
  updated_at: { columns: ['updated_at'], schema: naiveTime, of: (q) => spacedTime(q.updated_at) },
  venue: { columns: ['venue'], schema: R.str, of: (q) => venueName(q.venue) },
  deployer: { columns: ['deployer'], schema: R.str },
});
export const questionRecord = QUESTION.of;

// ---- outcome markets ----

/**
 * One field of an outcome's description (`class:priceBucket|underlying:BTC|...`), null when it has none. The five
 * fields read from it are written one after the other: the description is parsed once per row.
 */
const described = (() => {
  let last: { description: string; fields: Record<string, string> } | undefined;
  return (o: Pick<OutcomeRow, 'description'>, key: string): string | null => {
    if (last?.description !== o.description)
      last = { description: o.description, fields: descriptionFields(o.description) };
    return last.fields[key] ?? null;
  };
})();

export const MARKET = describeRecord<OutcomeRow>()({
  outcome_id: { columns: ['outcome_id'], schema: R.int },
  coin: { columns: ['outcome_id'], schema: R.str, of: (o) => sideCoin(o.outcome_id, 0) },
  name: { columns: ['name'], schema: R.str },
  description: { columns: ['description'], schema: R.str },
  class: { columns: ['description'], schema: text, of: (o) => described(o, 'class') },
  underlying: { columns: ['description'], schema: text, of: (o) => described(o, 'underlying') },
  expiry: { columns: ['description'], schema: text, of: (o) => described(o, 'expiry') },
  target_price: { columns: ['description'], schema: text, of: (o) => described(o, 'targetPrice') },
  period: { columns: ['description'], schema: text, of: (o) => described(o, 'period') },
  side_specs: {
    columns: ['side_specs'],
    schema: { type: 'string', description: 'JSON text' },
    of: (o) => JSON.stringify(o.side_specs),
  },
  question_id: { columns: ['question_id'], schema: R.orNull(R.int) },
  quote_token: { columns: ['quote_token'], schema: R.str },
  block_time: { columns: ['block_time'], schema: naiveTime, of: (o) => naiveIso(o.block_time) },
  settled: { columns: ['settled'], schema: { enum: [0, 1] }, of: (o) => (o.settled ? 1 : 0) },
  settle_fraction: { columns: ['settle_fraction'], schema: R.orNull(R.decimal) },
  question_name: { columns: ['question_name'], schema: text },
  question_description: { columns: ['question_description'], schema: text },
  total_fills: { columns: ['total_fills'], schema: R.int },
  total_volume: { columns: ['total_volume'], schema: R.decimal },
  unique_users: { columns: ['unique_users'], schema: R.int },
  venue: { columns: ['venue'], schema: R.str },
  // An oracle-emitted market has no venue, and so no deployer.
  deployer: { columns: ['venue', 'deployer'], schema: R.str, of: (o) => (o.venue ? o.deployer : '') },
  deployer_fee_scale: { columns: ['fee_scale'], schema: R.decimal, of: (o) => o.fee_scale ?? '0' },
});
export const marketRecord = MARKET.of;

// ---- fills ----

/** A boolean column as Postgres prints it. */
const isTrue = (t: string) => t === 't';

export const FILL = describeRecord<Hip4FillWithMarket>()({
  user: { columns: ['address'], schema: R.address },
  coin: { columns: ['coin'], schema: R.str },
  outcome_id: { columns: ['outcome_id'], schema: R.int },
  px: { columns: ['px'], schema: R.decimal },
  sz: { columns: ['sz'], schema: R.decimal },
  side: { columns: ['side'], schema: R.side },
  time_ms: { columns: ['time'], schema: R.ms },
  dir: { columns: ['dir'], schema: R.str },
  closedPnl: { columns: ['closed_pnl'], schema: R.decimal },
  hash: { columns: ['hash'], schema: R.txHash },
  oid: { columns: ['oid'], schema: R.int },
  tid: { columns: ['tid'], schema: R.int },
  fee: { columns: ['fee'], schema: R.decimal },
  feeToken: { columns: ['fee_token'], schema: R.str },
  // Outcome fees are paid in the quote token (USDH), which the exchange holds at par with USDC.
  fee_usdc: { columns: ['fee'], schema: R.decimal },
  typeTrade: {
    columns: ['is_settlement', 'crossed'],
    schema: { enum: ['taker', 'maker', 'settlement'] },
    of: (f) => (f.is_settlement ? 'settlement' : f.crossed ? 'taker' : 'maker'),
  },
  market_name: { columns: ['market_name'], schema: text },
  market_description: { columns: ['market_description'], schema: text },
  venue: { columns: ['venue'], schema: R.str },
  deployer: { columns: ['deployer'], schema: R.str },
});
export const fillRecord = FILL.of;

/**
 * fillRecord's JSON, written from Postgres's text (the service's eachFillTextRow, columns at FILL_COLUMN): no value
 * parsed but the two booleans typeTrade reads, no object per row.
 */
export const fillRowJson: (r: TextRow) => string = FILL.jsonWriter((c) => FILL_COLUMN[c], {
  is_settlement: isTrue,
  crossed: isTrue,
});

// ---- statistics per venue, the deployer registry, analytics buckets ----

export const PROVIDER = describeRecord<ProviderStats>()({
  venue: { columns: ['venue'], schema: R.str },
  markets_traded: { columns: ['markets_traded'], schema: R.int },
  fills: { columns: ['fills'], schema: R.int },
  volume_usdc: { columns: ['volume_usdc'], schema: R.decimal },
  unique_users: { columns: ['unique_users'], schema: R.int },
  fees: { columns: ['fees'], schema: R.decimal },
  last_trade: { columns: ['last_trade'], schema: naiveTime, of: (p) => naiveIso(p.last_trade) },
});
export const providerRecord = PROVIDER.of;

export const DEPLOYER = describeRecord<VenueRow>()({
  deployer: { columns: ['deployer'], schema: R.address },
  venue: { columns: ['venue'], schema: R.str },
  fee_scale: { columns: ['fee_scale'], schema: R.decimal },
  sub_deployers: {
    columns: ['sub_deployers'],
    schema: { type: 'string', description: 'JSON text: [action, [addresses]] pairs' },
    of: (v) => JSON.stringify(v.sub_deployers),
  },
  updated_at: { columns: ['updated_at'], schema: naiveTime, of: (v) => naiveIso(v.updated_at) },
});
export const deployerRecord = DEPLOYER.of;

export const BUCKET = describeRecord<AnalyticsBucket>()({
  // `2026-11-22T07:00:00`: a bucket's start, naive ISO without milliseconds (spec §2.3).
  bucket: {
    columns: ['bucket'],
    schema: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$' },
    of: (b) => naiveIso(b.bucket).slice(0, 19),
  },
  // Only when the rows are split by coin.
  coin: { columns: ['coin'], schema: R.str, optional: true },
  fills: { columns: ['fills'], schema: R.int },
  volume: { columns: ['volume'], schema: num },
  buy_volume: { columns: ['buy_volume'], schema: num },
  sell_volume: { columns: ['sell_volume'], schema: num },
  fees_usdc: { columns: ['fees_usdc'], schema: num },
  unique_users: { columns: ['unique_users'], schema: R.int },
});
export const bucketRecord = BUCKET.of;
