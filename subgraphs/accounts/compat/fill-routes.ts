// /fills/, /fills/recent and /fills/user/{user_address}: compact fill rows (spec §2.3) in the data envelope,
// paged by keyset cursor. `include_order_type=true` adds `orderType` to each row; false leaves the body unchanged.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { dataEnvelopeOf } from '../../../kit/answers.ts';
import { dataEnvelope } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { addressSchema, limitSchema, type TimeWindowQuery, timeWindow, timeWindowSchema } from '../../../kit/params.ts';
import * as R from '../../../kit/response-schema.ts';
import { FILL_ROWS_DEFAULT_LIMIT, MAX_FILL_ROWS } from '../service/index.ts';
import { compactFill } from './info.ts';

interface FillsQuery extends TimeWindowQuery {
  user?: string;
  coin?: string;
  side?: 'A' | 'B';
  limit: number;
  cursor?: string;
  order?: 'asc' | 'desc';
  include_order_type: boolean;
}

const querystring = {
  type: 'object',
  properties: {
    ...timeWindowSchema,
    user: addressSchema,
    coin: { type: 'string', minLength: 1 },
    side: { type: 'string', enum: ['A', 'B'] },
    limit: limitSchema(MAX_FILL_ROWS, FILL_ROWS_DEFAULT_LIMIT),
    cursor: { type: 'string' },
    order: { type: 'string', enum: ['asc', 'desc'] },
    include_order_type: { type: 'boolean', default: false },
  },
} as const;

export const fillRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { accounts } = services;

  async function answer(
    req: FastifyRequest<{ Querystring: FillsQuery }>,
    user: string | undefined,
    order: 'asc' | 'desc',
  ) {
    const q = req.query;
    const page = await accounts.fillRows({
      user: user?.toLowerCase(),
      coin: q.coin,
      side: q.side,
      ...timeWindow(q),
      limit: q.limit,
      cursor: q.cursor,
      order: q.order ?? order,
      includeOrderType: q.include_order_type,
    });
    return dataEnvelope(req, page.rows, page);
  }

  const rows = { body: dataEnvelopeOf(R.list(compactFill)) };
  app.get<{ Querystring: FillsQuery }>('/', { schema: { querystring, answer: rows } }, (req) =>
    answer(req, req.query.user, 'asc'),
  );
  app.get<{ Querystring: FillsQuery }>('/recent', { schema: { querystring, answer: rows } }, (req) =>
    answer(req, req.query.user, 'desc'),
  );
  app.get<{ Params: { user_address: string }; Querystring: FillsQuery }>(
    '/user/:user_address',
    {
      schema: { params: { type: 'object', properties: { user_address: addressSchema } }, querystring, answer: rows },
    },
    (req) => answer(req, req.params.user_address, 'desc'),
  );
};
