// What the /hip4 routes answer, for the OpenAPI document (kit/answers.ts): the rows of routes.ts's record
// functions. Money and sizes are decimal strings; the analytics buckets' sums are JSON numbers, as spec §2.3 shows
// them.
import { analyticsEnvelopeOf, naiveTime, type RouteAnswer } from '../../../kit/answers.ts';
import type { JsonSchema } from '../../../kit/request-schema.ts';
import * as R from '../../../kit/response-schema.ts';

const text = R.orNull(R.str);
const num: JsonSchema = { type: 'number' };

const question = R.record({
  question_id: R.int,
  name: R.str,
  description: R.str,
  fallback_outcome: R.int,
  named_outcomes: R.list(R.int),
  settled_named_outcomes: R.list(R.int),
  updated_at: naiveTime,
  venue: R.str,
  deployer: R.str,
});

const market = R.record({
  outcome_id: R.int,
  coin: R.str,
  name: R.str,
  description: R.str,
  class: text,
  underlying: text,
  expiry: text,
  target_price: text,
  period: text,
  side_specs: { type: 'string', description: 'JSON text' },
  question_id: R.orNull(R.int),
  quote_token: R.str,
  block_time: naiveTime,
  settled: { enum: [0, 1] },
  settle_fraction: R.orNull(R.decimal),
  question_name: text,
  question_description: text,
  total_fills: R.int,
  total_volume: R.decimal,
  unique_users: R.int,
  venue: R.str,
  deployer: R.str,
  deployer_fee_scale: R.decimal,
});

const fill = R.record({
  user: R.address,
  coin: R.str,
  outcome_id: R.int,
  px: R.decimal,
  sz: R.decimal,
  side: R.side,
  time_ms: R.ms,
  dir: R.str,
  closedPnl: R.decimal,
  hash: R.txHash,
  oid: R.int,
  tid: R.int,
  fee: R.decimal,
  feeToken: R.str,
  fee_usdc: R.decimal,
  typeTrade: { enum: ['taker', 'maker', 'settlement'] },
  market_name: text,
  market_description: text,
  venue: R.str,
  deployer: R.str,
});

const provider = R.record({
  venue: R.str,
  markets_traded: R.int,
  fills: R.int,
  volume_usdc: R.decimal,
  unique_users: R.int,
  fees: R.decimal,
  last_trade: naiveTime,
});

const deployer = R.record({
  deployer: R.address,
  venue: R.str,
  fee_scale: R.decimal,
  sub_deployers: { type: 'string', description: 'JSON text: [action, [addresses]] pairs' },
  updated_at: naiveTime,
});

const bucket = R.record(
  {
    bucket: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$' },
    coin: R.str,
    fills: R.int,
    volume: num,
    buy_volume: num,
    sell_volume: num,
    fees_usdc: num,
    unique_users: R.int,
  },
  ['coin'],
);

/** A bare array of `item`, paged by X-Has-More and X-Next-Cursor. */
const pagedArray = (item: JsonSchema): RouteAnswer => ({ body: R.list(item), pagingHeaders: true });

export const HIP4_ANSWERS = {
  questions: pagedArray(question),
  markets: pagedArray(market),
  fills: pagedArray(fill),
  providers: pagedArray(provider),
  deployers: pagedArray(deployer),
  analytics: { body: analyticsEnvelopeOf(bucket), pagingHeaders: true },
} satisfies Record<string, RouteAnswer>;
