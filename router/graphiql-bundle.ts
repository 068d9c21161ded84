// GraphiQL's bundle served as files of its own. Yoga's offline page inlines it (scripts, styles and icon from
// node_modules, ~9 MB) into every page, which a browser downloads and parses again on each load; here it is cut out
// of that page once, on first use, into files named by their content's hash and cached for good, and the page left is
// a small HTML that references them.
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { GatewayPlugin } from '@graphql-hive/gateway-runtime';
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';
import { errorBody } from '../platform/error-codes.ts';

/** Where the files are served: under the GraphQL endpoint, beside the page. */
export const GRAPHIQL_ASSETS_PATH = '/graphql/assets/';

/** A file's name changes with its content, so a browser may keep it as long as it likes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface GraphiQLAsset {
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
  /** The body gzipped, made on the first request that accepts it (off the event loop). */
  gzipped(): Promise<Uint8Array<ArrayBuffer>>;
}

const gzipAsync = promisify(gzip);

export interface GraphiQLBundle {
  /** The files, by path. */
  assets: ReadonlyMap<string, GraphiQLAsset>;
  /** Yoga's page for these options, its bundle referenced instead of inlined. */
  render(options: GraphiQLOptions): string;
}

/** Stands for the per-request parts (title, options) in the page rendered once. */
const MARK = 'hl-graphiql-mark';

/** Yoga's page lacks a part this cut expects: the request fails here rather than serve a broken page. */
const changed = (what: string) =>
  new Error(`GraphiQL bundle: Yoga's page has no ${what} (@graphql-yoga/render-graphiql changed)`);

/** Where a part of Yoga's page is, and what it holds (the pattern's first group). */
interface Part {
  at: number;
  length: number;
  inner: string;
}

/** `pattern`'s match in Yoga's page. */
function part(html: string, pattern: RegExp, what: string): Part {
  const found = pattern.exec(html);
  if (found?.[1] === undefined) throw changed(what);
  return { at: found.index, length: found[0].length, inner: found[1] };
}

/** `text`, which Yoga's page must hold. */
function present(html: string, text: string, what: string): string {
  if (!html.includes(text)) throw changed(what);
  return text;
}

/** A file named by the first 16 hex digits of its content's sha-256. */
function asset(
  name: string,
  extension: string,
  contentType: string,
  body: Uint8Array<ArrayBuffer>,
): [string, GraphiQLAsset] {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
  let zipped: Promise<Uint8Array<ArrayBuffer>> | undefined;
  const gzipped = () => {
    zipped ??= gzipAsync(body);
    return zipped;
  };
  return [`${GRAPHIQL_ASSETS_PATH}${name}-${hash}.${extension}`, { contentType, body, gzipped }];
}

/** Options as a script literal: `<` escaped, so no value can close the script element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

const escapeHtml = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;');

function cutBundle(): GraphiQLBundle {
  let html = renderGraphiQL({ title: MARK });
  const icon = part(html, /<link rel="icon" href="data:image\/x-icon;base64,([^"]+)" \/>/, 'inlined icon');
  const style = part(html, /<style>([\s\S]*?)<\/style>/, 'inlined style');
  // The bundle is everything before the call that mounts GraphiQL (the page's options follow in that call).
  const script = part(html, /<script>([\s\S]*)YogaGraphiQL\.renderYogaGraphiQL\(/, 'inlined script');
  const [iconPath, iconFile] = asset('graphiql', 'ico', 'image/x-icon', Buffer.from(icon.inner, 'base64'));
  const [cssPath, cssFile] = asset('graphiql', 'css', 'text/css; charset=utf-8', Buffer.from(style.inner));
  const [jsPath, jsFile] = asset('graphiql', 'js', 'text/javascript; charset=utf-8', Buffer.from(script.inner));
  // Cut from the end first, so the earlier matches' positions still hold.
  const replacements: [Part, string][] = [
    [script, `<script src="${jsPath}"></script>\n      <script>\n        YogaGraphiQL.renderYogaGraphiQL(`],
    [style, `<link rel="stylesheet" href="${cssPath}" />`],
    [icon, `<link rel="icon" href="${iconPath}" />`],
  ];
  for (const [found, by] of replacements) {
    html = html.slice(0, found.at) + by + html.slice(found.at + found.length);
  }
  const title = present(html, `<title>${MARK}</title>`, 'title');
  const options = present(html, JSON.stringify({ title: MARK }), 'options');
  return {
    assets: new Map([
      [iconPath, iconFile],
      [cssPath, cssFile],
      [jsPath, jsFile],
    ]),
    render: (opts) =>
      html
        .replace(title, () => `<title>${escapeHtml(opts.title || 'Yoga GraphiQL')}</title>`)
        .replace(options, () => scriptJson(opts)),
  };
}

let cut: GraphiQLBundle | undefined;

/**
 * The bundle, cut on the first page or file asked for (~140 ms, not paid by a router nobody opens GraphiQL on) and
 * shared by every router of the process. A Yoga whose page this cut no longer fits fails that request, not the
 * router's start: the API does not depend on its GraphiQL page (router/graphiql.test.ts catches it first).
 */
export function graphiqlBundle(): GraphiQLBundle {
  cut ??= cutBundle();
  return cut;
}

/** A file's answer, gzipped when the client takes it (the script: 8 MB, 2 MB gzipped). */
async function answer(file: GraphiQLAsset, request: Request, fetchAPI: { Response: typeof Response }) {
  const headers = { 'content-type': file.contentType, 'cache-control': IMMUTABLE, vary: 'Accept-Encoding' };
  const takesGzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  if (!takesGzip) return new fetchAPI.Response(file.body, { headers });
  return new fetchAPI.Response(await file.gzipped(), { headers: { ...headers, 'content-encoding': 'gzip' } });
}

/**
 * Serves the bundle's files, before the key check: the page needs no key (router/plugins.ts lets it through), so
 * neither do the files it loads, which are the same for everyone. Any other path under the files' folder is 404.
 */
export function useGraphiQLAssets(): GatewayPlugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (!url.pathname.startsWith(GRAPHIQL_ASSETS_PATH)) return;
      const read = request.method === 'GET' || request.method === 'HEAD';
      const file = read ? graphiqlBundle().assets.get(url.pathname) : undefined;
      if (!file) {
        const body = JSON.stringify(errorBody('not_found', `no such file: ${url.pathname}`));
        endResponse(new fetchAPI.Response(body, { status: 404, headers: { 'content-type': 'application/json' } }));
        return;
      }
      endResponse(await answer(file, request, fetchAPI));
    },
  };
}
