// The live page at GET / (compat-rest/live/): markets with mids, the selected coin's candlestick chart, book and
// trade tape, fed by the router's GraphQL subscriptions over graphql-ws. Its libraries (lightweight-charts, the
// graphql-ws client) are served from node_modules: the page needs nothing but this service. It is public (it is
// only a page); its data comes from the router under the key of its address (`?api_key=`) or of its key field.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { CREATE_KEY_COMMAND } from '../access/keys.ts';
import { HttpError } from '../kit/envelopes.ts';

const HERE = path.join(path.dirname(new URL(import.meta.url).pathname), 'live');

/** A file of an installed package (by its package.json: the packages do not export their browser builds). */
function packageFile(pkg: string, file: string): string {
  const dir = path.dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  return path.join(dir, file);
}

const ASSETS: Record<string, { file: string; type: string }> = {
  'app.js': { file: path.join(HERE, 'app.js'), type: 'text/javascript' },
  'live.css': { file: path.join(HERE, 'live.css'), type: 'text/css' },
  'lightweight-charts.js': {
    file: packageFile('lightweight-charts', 'dist/lightweight-charts.standalone.production.js'),
    type: 'text/javascript',
  },
  'graphql-ws.js': { file: packageFile('graphql-ws', 'umd/graphql-ws.min.js'), type: 'text/javascript' },
};

/** The page and its assets need no key. */
export function isLivePageRequest(method: string, urlPath: string): boolean {
  return method === 'GET' && (urlPath === '/' || urlPath.startsWith('/live/'));
}

/** Router addresses that name no host a browser can use: the page puts its own host there. */
const UNNAMED_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '0.0.0.0', '[::]']);

/**
 * The page's configuration script, written from the configured router URL alone (never from the request's `Host`,
 * which a client sets as it likes): a router bound to loopback or every interface is reached on the host name the
 * browser loaded the page from (`location.hostname`, the browser's own), at the router's port; a named one as named.
 */
export function liveConfigScript(graphqlUrl: string, keyRequired: boolean): string {
  const url = new URL(graphqlUrl);
  const ownHost = UNNAMED_HOSTS.has(url.hostname);
  const rest = { keyRequired, createKeyCommand: CREATE_KEY_COMMAND };
  return `(function () {
  var http = new URL(${JSON.stringify(url.href)});
  if (${ownHost} && location.hostname) http.hostname = location.hostname;
  var ws = new URL(http.href);
  ws.protocol = http.protocol === 'https:' ? 'wss:' : 'ws:';
  window.LIVE_CONFIG = Object.assign({ graphqlHttp: http.href, graphqlWs: ws.href }, ${JSON.stringify(rest)});
})();
`;
}

/**
 * Serves the page when the router's URL is known (`graphqlUrl`, its HTTP endpoint), configured by liveConfigScript;
 * it shows its key field, and says how to get a key, when one is required.
 */
export function registerLivePage(
  app: FastifyInstance,
  graphqlUrl: string | undefined,
  keyRequired: () => Promise<boolean>,
): void {
  if (!graphqlUrl) return;
  const page = fs.readFileSync(path.join(HERE, 'index.html'));
  const assets = new Map(
    Object.entries(ASSETS).map(([name, a]) => [name, { body: fs.readFileSync(a.file), type: a.type }]),
  );
  const hidden = { schema: { hide: true } };

  app.get('/', hidden, async (_req, reply) => reply.type('text/html; charset=utf-8').send(page));
  app.get('/live/config.js', hidden, async (_req, reply) => {
    // Storage down: the key rule cannot be read, and the field does no harm.
    const needsKey = await keyRequired().catch(() => true);
    return reply.type('text/javascript').send(liveConfigScript(graphqlUrl, needsKey));
  });
  app.get<{ Params: { name: string } }>('/live/:name', hidden, async (req, reply) => {
    const asset = assets.get(req.params.name);
    if (!asset) throw new HttpError('not_found', `no such asset: ${req.params.name}`);
    return reply.type(asset.type).header('cache-control', 'public, max-age=300').send(asset.body);
  });
}
