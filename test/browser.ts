// Headless Chromium for the browser tests (GraphiQL, the docs page, the live page): Debian's `chromium` driven by
// playwright-core, with every request to anything but loopback refused, so a page that needs the internet fails.
import fs from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Debian's binary (the `chromium` on PATH is a shell wrapper around it), or CHROMIUM_PATH. */
const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium'];

export const CHROMIUM_PATH: string | undefined = CANDIDATES.find((p): p is string => !!p && fs.existsSync(p));

/** Why browser tests are skipped, or null when they run. */
export const NO_BROWSER = CHROMIUM_PATH
  ? null
  : 'browser tests skipped: no chromium found (apt-get install -y chromium, or set CHROMIUM_PATH)';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export interface OfflineBrowser {
  browser: Browser;
  context: BrowserContext;
  /** URLs the pages asked for off loopback (all refused by the browser's resolver). */
  blocked: string[];
  /** Another context under the same rule, with storage of its own (no GraphiQL tabs or keys of earlier pages). */
  freshContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Every name but loopback's resolves to nothing, so a request off loopback fails in the browser itself, whatever made
 * it (page, worker, WebSocket). Playwright's request routing would do it too, but turns the HTTP cache off, and
 * GraphiQL's bundle is meant to be loaded once and kept (router/graphiql-bundle.ts).
 */
const LOOPBACK_ONLY = '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1, EXCLUDE ::1';

/** A URL a page may ask for: on loopback, or made by the page itself. */
function local(url: URL): boolean {
  return url.protocol === 'blob:' || url.protocol === 'data:' || LOOPBACK.has(url.hostname);
}

/**
 * The environment without libfaketime (`npm run test:clock-ahead` moves the Node processes' clock only): the browser,
 * like Postgres, keeps the real one, and Chromium's crash handler fails its start under the preloaded library.
 */
function realClock(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && name !== 'LD_PRELOAD' && !name.startsWith('FAKETIME')) out[name] = value;
  }
  return out;
}

/** A browser whose pages reach loopback only: any other request is refused and noted in `blocked`. */
export async function offlineBrowser(): Promise<OfflineBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', LOOPBACK_ONLY],
    env: realClock(process.env),
  });
  const blocked: string[] = [];
  const offlineContext = async () => {
    const context = await browser.newContext();
    context.on('request', (request) => {
      const url = new URL(request.url());
      if (!local(url)) blocked.push(url.href);
    });
    return context;
  };
  const context = await offlineContext();
  return {
    browser,
    context,
    blocked,
    freshContext: offlineContext,
    async close() {
      // Closing the browser closes every context it opened.
      await browser.close();
    },
  };
}
