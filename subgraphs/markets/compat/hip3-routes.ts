// /hip3/*: HIP-3 dex coins' latest snapshots and the top movers, in the data envelope; `last_update` as naive UTC
// ISO text, as in every path-endpoint record.
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelopeOf, naiveTime, type RouteAnswer } from '../../../kit/answers.ts';
import { dataEnvelope } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { limitSchema } from '../../../kit/params.ts';
import * as R from '../../../kit/response-schema.ts';
import { naiveIso } from '../../../platform/naive-iso.ts';
import { HIP3_TOP_MOVERS_DEFAULT, type Hip3Snapshot, MAX_HIP3_TOP_MOVERS } from '../service/index.ts';

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

export const hip3Routes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { markets } = services;

  app.get<{ Querystring: { dex_id?: string; coin?: string } }>(
    '/snapshots',
    {
      schema: {
        answer: snapshots,
        querystring: {
          type: 'object',
          properties: { dex_id: { type: 'string' }, coin: { type: 'string' } },
        },
      },
    },
    async (req) => {
      const rows = await markets.hip3Snapshots({ dexId: req.query.dex_id, coin: req.query.coin });
      return dataEnvelope(req, rows.map(record));
    },
  );

  app.get<{ Querystring: { limit: number } }>(
    '/top-movers',
    {
      schema: {
        answer: snapshots,
        querystring: {
          type: 'object',
          properties: { limit: limitSchema(MAX_HIP3_TOP_MOVERS, HIP3_TOP_MOVERS_DEFAULT) },
        },
      },
    },
    async (req) => dataEnvelope(req, (await markets.hip3TopMovers(req.query.limit)).map(record)),
  );
};
