// compat-rest as a running server: the fastify app (POST /info, path endpoints) and /ws on one port (8080).

import type pg from 'pg';
import { type Authenticator, presentedKey } from '../access/auth.ts';
import { CALL_CREDITS, subscribeCredits } from '../access/costs.ts';
import { DOMAIN_LIST } from '../domains.ts';
import type { Channel } from '../kit/channel.ts';
import type { DomainName } from '../kit/domain.ts';
import { errorAnswer } from '../kit/envelopes.ts';
import type { CompatServices } from '../kit/info.ts';
import { holesOf } from '../kit/resume.ts';
import { errorBody } from '../platform/error-codes.ts';
import { watchWs } from '../platform/metrics.ts';
import { buildCompatApp } from './app.ts';
import { capabilityChannels } from './capability-channels.ts';
import { checkInfo } from './info/index.ts';
import { attachWsServer } from './ws/protocol.ts';

export interface CompatServerOptions {
  services: CompatServices;
  auth: Authenticator;
  /** The service's database, for `GET /ready`. */
  pool?: pg.Pool;
  port: number;
  host?: string;
  log?: (line: string) => void;
  /** The router's GraphQL endpoint, for the live page. */
  graphqlUrl?: string;
}

/** Every domain's /ws channels (its live capabilities', domains.ts), over its service. */
export function domainChannels(services: CompatServices): Channel[] {
  return DOMAIN_LIST.flatMap((d) =>
    d.capabilities ? capabilityChannels(d.capabilities, services[d.name as DomainName]) : [],
  );
}

export async function startCompatServer(opts: CompatServerOptions) {
  const app = await buildCompatApp(opts);
  const ws = attachWsServer(app.server, {
    channels: domainChannels(opts.services),
    authenticate: async (req) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const key = presentedKey({ headers: req.headers, query: url.searchParams });
      const outcome = await opts.auth.checkKey(key, 'rest');
      if (outcome.ok) return { key };
      const { status, code, error } = outcome;
      return { status, code, error, ...(outcome.status === 429 ? { retryAfter: outcome.retryAfter } : {}) };
    },
    // A subscribe is a call like a post: the same key rules and window, and CALL_CREDITS, its snapshot included
    // (the answer of the matching /info call); the live frames after it cost nothing. One of many coins counts and
    // costs as that many subscribes (access/costs.ts subscribeCredits).
    // A replay costs by the minutes of data it covers (access/costs.ts).
    admitSubscribe: async ({ key }, price, count = 1) => {
      const credits = price ?? subscribeCredits(count);
      const admitted = await opts.auth.checkKey(key, 'rest', count);
      if (!admitted.ok) return admitted;
      const charged = await opts.auth.chargeKey(admitted.key, credits, 'ws');
      if (!charged.ok) return charged;
      return { ok: true, refund: () => opts.auth.refundKey(admitted.key, credits, 'ws') };
    },
    replay: {
      holes: async (datasets, start, end) => holesOf(await opts.services.coverage(Date.now()), datasets, start, end),
    },
    info: async (payload, { key }) => {
      // A post is a request like POST /info: the same key rules, counted in the same per-key window; its body is
      // checked before it is charged, and a call its handler refuses for its input gets the charge back.
      const admitted = await opts.auth.checkKey(key, 'rest');
      if (!admitted.ok) return { status: admitted.status, body: errorBody(admitted.code, admitted.error) };
      let charged = false;
      try {
        const { request, entry, input } = checkInfo(payload);
        const charge = await opts.auth.chargeKey(admitted.key, CALL_CREDITS, 'ws');
        if (!charge.ok) return { status: charge.status, body: errorBody(charge.code, charge.error) };
        charged = true;
        const answer = await entry.handler(request, opts.services, input);
        if (answer.kind === 'json') return { status: 200, body: answer.body };
        if (answer.kind === 'encoded') return { status: 200, encoded: answer.body };
        if (answer.kind === 'streamed') {
          // A post frame carries the whole answer: the chunks are gathered.
          const chunks: Buffer[] = [];
          const last = await answer.write((chunk) => chunks.push(chunk));
          return { status: 200, encoded: Buffer.concat([...chunks, last]) };
        }
        let body: unknown = answer.body;
        try {
          body = JSON.parse(answer.body);
        } catch {
          // a plain-text upstream answer (e.g. the node's 422) is passed on as text
        }
        return { status: answer.status, body };
      } catch (err) {
        const refused = errorAnswer(err);
        if (!refused) throw err;
        if (charged && (refused.status === 400 || refused.status === 404)) {
          await opts.auth.refundKey(admitted.key, CALL_CREDITS, 'ws');
        }
        return { status: refused.status, body: refused.body };
      }
    },
    log: opts.log,
  });
  const unwatchWs = watchWs(ws);
  const host = opts.host ?? '127.0.0.1';
  await app.listen({ port: opts.port, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    app,
    url: `http://${host}:${port}`,
    wsUrl: `ws://${host}:${port}/ws`,
    async close() {
      unwatchWs();
      await ws.close();
      await app.close();
    },
  };
}
