// What the /hip4 routes answer, for the OpenAPI document (kit/answers.ts): the rows of the records described in
// records.ts, each list a bare array paged by headers, analytics in its envelope.
import { analyticsEnvelopeOf, type RouteAnswer } from '../../../kit/answers.ts';
import type { JsonSchema } from '../../../kit/request-schema.ts';
import * as R from '../../../kit/response-schema.ts';
import { BUCKET, DEPLOYER, FILL, MARKET, PROVIDER, QUESTION } from '../records.ts';

/** A bare array of `item`, paged by X-Has-More and X-Next-Cursor. */
const pagedArray = (item: JsonSchema): RouteAnswer => ({ body: R.list(item), pagingHeaders: true });

export const HIP4_ANSWERS = {
  questions: pagedArray(QUESTION.schema),
  markets: pagedArray(MARKET.schema),
  fills: pagedArray(FILL.schema),
  providers: pagedArray(PROVIDER.schema),
  deployers: pagedArray(DEPLOYER.schema),
  analytics: { body: analyticsEnvelopeOf(BUCKET.schema), pagingHeaders: true },
} satisfies Record<string, RouteAnswer>;
