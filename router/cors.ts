// CORS for the router. The origins configured in `CORS_ORIGINS` (platform/config.ts) are answered with their own
// origin and `Access-Control-Allow-Credentials: true`; any other origin gets `Access-Control-Allow-Origin: *`
// without credentials, which lets a page read the public API with the key it sends itself, and never with what the
// browser would add on its own (cookies, HTTP auth). Yoga's default reflects every origin with credentials, and its
// options cannot answer `*` literally, so the gateway's own CORS is off and this plugin answers.
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';

const METHODS = 'GET, POST, OPTIONS';

/** The CORS headers for a request from `origin` (none without one). */
export function corsHeaders(
  origin: string | null,
  allowed: ReadonlySet<string>,
  requestedHeaders: string | null,
): Record<string, string> {
  if (origin === null) return {};
  const headers: Record<string, string> = allowed.has(origin)
    ? { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'Origin' }
    : { 'access-control-allow-origin': '*' };
  headers['access-control-allow-methods'] = METHODS;
  if (requestedHeaders) headers['access-control-allow-headers'] = requestedHeaders;
  return headers;
}

/** The plugin (first of the router's): preflights answered 204, every answer given its origin's headers. */
export function useCors(origins: readonly string[]): GatewayPlugin {
  const allowed = new Set(origins);
  return {
    onRequest({ request, endResponse, fetchAPI }) {
      // Before the key check (a preflight carries no key). Safari waits for a body without the explicit length.
      if (request.method === 'OPTIONS') {
        endResponse(new fetchAPI.Response(null, { status: 204, headers: { 'content-length': '0' } }));
      }
    },
    onResponse({ request, response }) {
      const headers = corsHeaders(
        request.headers.get('origin'),
        allowed,
        request.headers.get('access-control-request-headers'),
      );
      for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
    },
  };
}
