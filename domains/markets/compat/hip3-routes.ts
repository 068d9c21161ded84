// /hip3/*: HIP-3 dex coins' latest snapshots and the top movers, in the data envelope; `last_update` as naive UTC
// ISO text, as in every path-endpoint record.
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelopeOf, naiveTime, type RouteAnswer } from '../../../kit/answers.ts';
import { dataEnvelope } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import * as R from '../../../kit/response-schema.ts';
import { routeInput } from '../../../kit/route-input.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import type { Hip3Snapshot } from '../service/hip3.ts';
import { HIP3_SNAPSHOTS, HIP3_TOP_MOVERS } from '../service/inputs.ts';

const nullableDecimal = R.orNull(R.decimal);
/** Both routes' rows (reference/service-details.md). */
const snapshots: RouteAnswer = {
  body: dataEnvelopeOf(
    R.list(
      R.record({
        dex_id: R.str,
        coin: R.str,
        current_mark_price: nullableDecimal,
        current_oracle_price: nullableDecimal,
        current_funding_rate: nullableDecimal,
        open_interest: nullableDecimal,
        volume_24h: R.decimal,
        fees_24h: R.decimal,
        trades_24h: R.int,
        total_volume_cumulative: R.decimal,
        total_fees_cumulative: R.decimal,
        is_halted: R.bool,
        last_update: R.orNull(naiveTime),
      }),
    ),
  ),
};

const record = (s: Hip3Snapshot) => ({ ...s, last_update: s.last_update === null ? null : naiveIso(s.last_update) });

// Each route reads its input definition before the call is charged (kit/route-input.ts).
const snapshotsInput = routeInput(HIP3_SNAPSHOTS);
const topMoversInput = routeInput(HIP3_TOP_MOVERS);

export const hip3Routes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { markets } = services;

  app.get(
    '/snapshots',
    { schema: { answer: snapshots, querystring: snapshotsInput.querystring() }, config: snapshotsInput.config },
    async (req) => {
      const rows = await markets.hip3Snapshots(snapshotsInput.of(req));
      return dataEnvelope(req, rows.map(record));
    },
  );

  app.get(
    '/top-movers',
    { schema: { answer: snapshots, querystring: topMoversInput.querystring() }, config: topMoversInput.config },
    async (req) => dataEnvelope(req, (await markets.hip3TopMovers(topMoversInput.of(req))).map(record)),
  );
};
