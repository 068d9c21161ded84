// /funding/userFunding and /users/{user}/account: a user's funding payments (spec §2.3: the payment's fields at the
// top level and in `delta`), paged as /info userFunding, and the latest perp-account state, valued at the live mids.
import type { FastifyPluginAsync } from 'fastify';
import { dataEnvelope, pagingHeaders } from '../../../kit/envelopes.ts';
import type { CompatServices } from '../../../kit/info.ts';
import * as R from '../../../kit/response-schema.ts';
import { routeInput } from '../../../kit/route-input.ts';
import { FUNDING_PAGE, USER } from '../service/index.ts';

// Read before the call is charged (kit/route-input.ts). /funding/userFunding names its fields as /info does.
const fundingInput = routeInput(FUNDING_PAGE);
const accountInput = routeInput(USER);

export const fundingRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  app.get(
    '/userFunding',
    {
      // A bare array, as the exchange answers userFunding.
      schema: { answer: { body: R.list(R.fundingPayment) }, querystring: fundingInput.querystring() },
      config: fundingInput.config,
    },
    async (req, reply) => {
      // The userFunding page, a bare array as /info answers it (the entries carry the spec's top-level fields beside
      // `delta`), continued by the X-Next-Cursor header.
      const page = await services.accounts.userFunding(fundingInput.of(req));
      return reply.headers(pagingHeaders(page)).send(page.rows);
    },
  );
};

export const userRoutes: FastifyPluginAsync<{ services: CompatServices }> = async (app, { services }) => {
  app.get(
    '/:user/account',
    { schema: { params: accountInput.params({ user: 'user' }) }, config: accountInput.config },
    async (req) => dataEnvelope(req, await services.accounts.accountState(accountInput.of(req).user)),
  );
};
