// Router plugins: the API-key rules of spec §5 on every GraphQL request (the GraphiQL page itself is public).
import type { IncomingMessage } from 'node:http';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import type { Authenticator, AuthOutcome } from '../platform/auth.ts';

export function useApiKeys(auth: Authenticator): GatewayPlugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      const wantsPage = request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
      if (wantsPage) return;
      const outcome = await auth.check(
        { headers: Object.fromEntries(request.headers), query: url.searchParams },
        'graphql',
      );
      if (!outcome.ok) {
        endResponse(
          new fetchAPI.Response(JSON.stringify({ error: outcome.error }), {
            status: outcome.status,
            headers: { 'content-type': 'application/json' },
          }),
        );
      }
    },
  };
}

/** The same rules for a graphql-ws upgrade. */
export function checkUpgrade(auth: Authenticator, req: IncomingMessage): Promise<AuthOutcome> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  return auth.check({ headers: req.headers, query: url.searchParams }, 'graphql');
}
