// /funding/userFunding and /users/{user}/account: a user's funding payments (spec §2.3: the payment's fields at the
// top level and in `delta`) and the latest perp-account state, valued at the live mids.
import type { FastifyPluginAsync } from 'fastify';
import { orderedWindow } from '../../platform/fields.ts';
import { dataEnvelope } from '../envelopes.ts';
import * as R from '../info/response-schema.ts';
import type { CompatServices } from '../info/types.ts';
import { addressSchema, epochMsSchema } from '../params.ts';

export const fundingRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  app.get<{ Querystring: { user: string; startTime?: number; endTime?: number } }>(
    '/userFunding',
    {
      schema: {
        // A bare array, as the exchange answers userFunding.
        answer: { body: R.list(R.fundingPayment) },
        querystring: {
          type: 'object',
          required: ['user'],
          properties: { user: addressSchema, startTime: epochMsSchema, endTime: epochMsSchema },
        },
      },
    },
    async (req) => {
      const { user, startTime, endTime } = req.query;
      orderedWindow('startTime', startTime, endTime);
      // The service's entries already carry the spec's top-level fields beside `delta`.
      return services.accounts.userFunding({ user: user.toLowerCase(), startTime, endTime });
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
