// /hip3/*: HIP-3 dex coins' latest snapshots and the top movers, in the data envelope; `last_update` as naive UTC
// ISO text, as in every path-endpoint record.
import type { FastifyPluginAsync } from 'fastify';
import { naiveIso } from '../../platform/naive-iso.ts';
import {
  HIP3_TOP_MOVERS_DEFAULT,
  type Hip3Snapshot,
  MAX_HIP3_TOP_MOVERS,
} from '../../subgraphs/markets/service/index.ts';
import { dataEnvelope } from '../envelopes.ts';
import type { CompatServices } from '../info/types.ts';
import { limitSchema } from '../params.ts';

const record = (s: Hip3Snapshot) => ({ ...s, last_update: s.last_update === null ? null : naiveIso(s.last_update) });

export const hip3Routes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { markets } = services;

  app.get<{ Querystring: { dex_id?: string; coin?: string } }>(
    '/snapshots',
    {
      schema: {
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
        querystring: {
          type: 'object',
          properties: { limit: limitSchema(MAX_HIP3_TOP_MOVERS, HIP3_TOP_MOVERS_DEFAULT) },
        },
      },
    },
    async (req) => dataEnvelope(req, (await markets.hip3TopMovers(req.query.limit)).map(record)),
  );
};
