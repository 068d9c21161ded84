// /fills/, /fills/recent and /fills/user/{user_address}: compact fill rows (spec §2.3) in the data envelope,
// paged by keyset cursor. `include_order_type=true` adds `orderType` to each row; false leaves the body unchanged.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { dataEnvelopeOf } from '../../../kit/answers.ts';
import { dataEnvelope } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import * as R from '../../../kit/response-schema.ts';
import { routeInput } from '../../../kit/route-input.ts';
import { compactFillSchema, FILL_ROWS } from '../service/index.ts';

// Each route reads the definition before the call is charged (kit/route-input.ts); /fills/user/{user_address}
// takes the user from its path.
const fillsInput = routeInput(FILL_ROWS);
const userFillsInput = routeInput(FILL_ROWS, (req) => ({
  ...(req.query as object),
  user: (req.params as { user_address: string }).user_address,
}));

export const fillRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  const { accounts } = services;

  async function answer(req: FastifyRequest, input: typeof fillsInput, order: 'asc' | 'desc') {
    const q = input.of(req);
    const page = await accounts.fillRows({ ...q, order: q.order ?? order });
    return dataEnvelope(req, page.rows, page);
  }

  const rows = { body: dataEnvelopeOf(R.list(compactFillSchema)) };
  const options = { schema: { querystring: fillsInput.querystring(), answer: rows }, config: fillsInput.config };
  app.get('/', options, (req) => answer(req, fillsInput, 'asc'));
  app.get('/recent', options, (req) => answer(req, fillsInput, 'desc'));
  app.get(
    '/user/:user_address',
    {
      schema: {
        params: userFillsInput.params({ user_address: 'user' }),
        querystring: userFillsInput.querystring(['user']),
        answer: rows,
      },
      config: userFillsInput.config,
    },
    (req) => answer(req, userFillsInput, 'desc'),
  );
};
