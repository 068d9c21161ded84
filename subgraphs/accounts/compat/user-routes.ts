// /funding/userFunding and /users/{user}/account: a user's funding payments (spec §2.3: the payment's fields at the
// top level and in `delta`), paged as /info userFunding, and the latest perp-account state, valued at the live mids.
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelope, pagingHeaders } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import { addressSchema, epochMsSchema } from '../../../kit/params.ts';
import * as R from '../../../kit/response-schema.ts';
import { orderedWindow } from '../../../platform/fields.ts';
import { MAX_HISTORY_PAGE } from '../service/index.ts';

export const fundingRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  app.get<{ Querystring: { user: string; startTime?: number; endTime?: number; limit?: number; cursor?: string } }>(
    '/userFunding',
    {
      schema: {
        // A bare array, as the exchange answers userFunding.
        answer: { body: R.list(R.fundingPayment) },
        querystring: {
          type: 'object',
          required: ['user'],
          properties: {
            user: addressSchema,
            startTime: epochMsSchema,
            endTime: epochMsSchema,
            limit: { type: 'integer', minimum: 1, maximum: MAX_HISTORY_PAGE },
            cursor: { type: 'string', maxLength: 200 },
          },
        },
      },
    },
    async (req, reply) => {
      const { user, startTime, endTime, limit, cursor } = req.query;
      orderedWindow('startTime', startTime, endTime);
      // The userFunding page, a bare array as /info answers it (the entries carry the spec's top-level fields beside
      // `delta`), continued by the X-Next-Cursor header.
      const page = await services.accounts.userFunding({ user: user.toLowerCase(), startTime, endTime, limit, cursor });
      return reply.headers(pagingHeaders(page)).send(page.rows);
    },
  );
};

export const userRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  app.get<{ Params: { user: string } }>(
    '/:user/account',
    { schema: { params: { type: 'object', properties: { user: addressSchema } } } },
    async (req) => dataEnvelope(req, await services.accounts.accountState(req.params.user)),
  );
};
