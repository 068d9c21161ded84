// /fills/, /fills/recent and /fills/user/{user_address}: compact fill rows (spec §2.3) in the data envelope,
// paged by keyset cursor. `include_order_type=true` adds `orderType` to each row; false leaves the body unchanged.
import type { FastifyPluginAsync } from 'fastify';
import { orderedWindow } from '../../platform/fields.ts';
import { fillRows } from '../../subgraphs/accounts/service/fills.ts';
import { dataEnvelope } from '../envelopes.ts';
import type { CompatServices } from '../info/types.ts';
import { limitSchema, type TimeWindowQuery, timeParam, timeWindowSchema } from '../params.ts';

interface FillsQuery extends TimeWindowQuery {
  user?: string;
  coin?: string;
  side?: 'A' | 'B';
  limit: number;
  cursor?: string;
  order?: 'asc' | 'desc';
  include_order_type: boolean;
}

const ADDRESS = '^0x[0-9a-fA-F]{40}$';

const querystring = {
  type: 'object',
  properties: {
    ...timeWindowSchema,
    user: { type: 'string', pattern: ADDRESS },
    coin: { type: 'string', minLength: 1 },
    side: { type: 'string', enum: ['A', 'B'] },
    limit: limitSchema(1000, 100),
    cursor: { type: 'string' },
    order: { type: 'string', enum: ['asc', 'desc'] },
    include_order_type: { type: 'boolean', default: false },
  },
} as const;

export const fillRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { accounts } = services;

  async function answer(q: FillsQuery, user: string | undefined, defaultOrder: 'asc' | 'desc') {
    const started = performance.now();
    const startTime = timeParam(q.start_time, 'start_time');
    const endTime = timeParam(q.end_time, 'end_time');
    orderedWindow('start_time', startTime, endTime, 'end_time');
    const page = await fillRows(accounts.pool, {
      user: user?.toLowerCase(),
      coin: q.coin,
      side: q.side,
      startTime,
      endTime,
      limit: q.limit,
      cursor: q.cursor,
      order: q.order ?? defaultOrder,
      includeOrderType: q.include_order_type,
    });
    return dataEnvelope(page.rows, started, page);
  }

  app.get<{ Querystring: FillsQuery }>('/', { schema: { querystring } }, (req) =>
    answer(req.query, req.query.user, 'asc'),
  );
  app.get<{ Querystring: FillsQuery }>('/recent', { schema: { querystring } }, (req) =>
    answer(req.query, req.query.user, 'desc'),
  );
  app.get<{ Params: { user_address: string }; Querystring: FillsQuery }>(
    '/user/:user_address',
    {
      schema: {
        params: { type: 'object', properties: { user_address: { type: 'string', pattern: ADDRESS } } },
        querystring,
      },
    },
    (req) => answer(req.query, req.params.user_address, 'desc'),
  );
};
