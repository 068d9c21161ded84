// The pages people open in a browser, in headless Chromium with the network off but loopback: the router's
// GraphiQL running a query and a subscription, compat's docs page rendering the OpenAPI document, and compat's live
// page showing trades and a moving chart; then, with a key configured, both pages with the key of their address and
// what they say without one.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../access/keys.ts';
import { NO_BROWSER, type OfflineBrowser, offlineBrowser } from './browser.ts';
import { startTestStack, type TestStack } from './stack.ts';

if (NO_BROWSER) console.warn(NO_BROWSER);

describe.skipIf(NO_BROWSER !== null)('in a browser without internet', () => {
  let stack: TestStack;
  let browser: OfflineBrowser;
  beforeAll(async () => {
    [stack, browser] = await Promise.all([startTestStack({ historyMs: 600_000 }), offlineBrowser()]);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });

  /**
   * GraphiQL opened with an operation in its editor, run with its execute button: the response pane's text, and what
   * each of its bundle's files transferred (resource timing: 0 for an answer the HTTP cache gave).
   */
  async function runInGraphiQL(operation: string, expected: RegExp) {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${stack.urls.router}?query=${encodeURIComponent(operation)}`);
      await page.locator('.graphiql-execute-button').click({ timeout: 30_000 });
      // The response editor (Monaco) renders spaces as no-break spaces.
      const response = async () => (await page.locator('.graphiql-response').innerText()).replaceAll('\u00a0', ' ');
      await expect.poll(response, { timeout: 20_000 }).toMatch(expected);
      const bundle = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .filter((e) => e.name.includes('/graphql/assets/'))
          .map((e) => ({
            file: e.name.replace(/.*\./, ''),
            transferred: (e as PerformanceResourceTiming).transferSize,
          }))
          .sort((a, b) => a.file.localeCompare(b.file)),
      );
      return { text: await response(), bundle };
    } finally {
      await page.close();
    }
  }

  it('GraphiQL runs a query', async () => {
    const { text } = await runInGraphiQL('{ market(coin: "BTC") { coin mid } }', /"mid": "\d/);
    expect(text).toContain('"coin": "BTC"');
    expect(browser.blocked).toEqual([]);
  }, 60_000);

  it("GraphiQL runs a subscription, its bundle from the browser's cache (the page before loaded it)", async () => {
    const { text, bundle } = await runInGraphiQL('subscription { trades(coin: "BTC") { coin px sz } }', /"px": "\d/);
    expect(text).toContain('"coin": "BTC"');
    expect(bundle).toEqual([
      { file: 'css', transferred: 0 },
      { file: 'ico', transferred: 0 },
      { file: 'js', transferred: 0 },
    ]);
  }, 60_000);

  it('refuses every request off loopback, and notes it', async () => {
    const page = await browser.context.newPage();
    try {
      // Any loopback page to fetch from (GraphiQL's would cost seconds of compiling for nothing).
      await page.goto(`${stack.urls.compat}/health`);
      const outcome = (url: string) =>
        page.evaluate(
          (u) =>
            fetch(u, { mode: 'no-cors' }).then(
              () => 'answered',
              () => 'refused',
            ),
          url,
        );
      expect(await outcome('http://example.com/x.js')).toBe('refused');
      expect(await outcome('http://1.1.1.1/x.js')).toBe('refused');
      expect(await outcome(`${stack.urls.compat}/health`)).toBe('answered');
      // Taken out again: the other tests check that their pages asked for nothing off loopback.
      expect(browser.blocked.splice(0)).toEqual(['http://example.com/x.js', 'http://1.1.1.1/x.js']);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('the live page shows the markets, trades, the book and a moving chart within 10 s', async () => {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${stack.urls.compat}/?coin=BTC`);
      await expect.poll(() => page.locator('#status').innerText(), { timeout: 10_000 }).toBe('live');
      await expect.poll(() => page.locator('#markets tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(3);
      await expect.poll(() => page.locator('#trades tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.locator('#bids tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
      // The chart drew (a canvas) and moved: live candle updates after the history.
      expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
      const updates = async () => Number(await page.locator('#chart').getAttribute('data-updates'));
      await expect.poll(updates, { timeout: 10_000 }).toBeGreaterThan(1);
      expect(await page.locator('#markets tr.selected').innerText()).toContain('BTC');
      // No key configured: no key field.
      expect(await page.locator('#key-field').isVisible()).toBe(false);
      expect(browser.blocked).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);

  it('the docs page renders the OpenAPI document', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${stack.urls.compat}/docs/`);
    await expect
      .poll(() => page.locator('.opblock-summary-path').allInnerTexts(), { timeout: 20_000 })
      .toContain('/market/bbo/{coin}');
    expect(await page.locator('.info .title').innerText()).toContain('hl-data-graph compat REST');
    await page.close();
    expect(browser.blocked).toEqual([]);
  }, 60_000);

  // Last: once a key exists, every request of the other tests would need it. Each test opens a context of its own:
  // no GraphiQL tabs or stored key of an earlier page.
  describe('with a key configured', () => {
    let key: string;
    beforeAll(async () => {
      ({ key } = await createKey(stack.db.pool, { scope: 'data', credits: null, label: 'pages' }));
      stack.auth.invalidate();
    });

    /** A page in a fresh context, closed with it after `use`. */
    async function withPage(use: (page: Page) => Promise<void>): Promise<void> {
      const context = await browser.freshContext();
      try {
        await use(await context.newPage());
      } finally {
        await context.close();
      }
    }

    const responseText = async (page: Page) =>
      (await page.locator('.graphiql-response').innerText()).replaceAll('\u00a0', ' ');

    it('GraphiQL with ?api_key= introspects with it and runs its example operation', async () => {
      await withPage(async (page) => {
        const introspection = page.waitForResponse((r) => (r.request().postData() ?? '').includes('__schema'));
        await page.goto(`${stack.urls.router}?api_key=${key}`);
        const answer = await introspection;
        expect(answer.status()).toBe(200);
        expect((await answer.json()).data.__schema.queryType.name).toBe('Query');
        // The example operation, not GraphiQL's welcome comment, is in the editor: run it. Its answer is read off
        // the network: the response pane shows only the lines in view.
        const ran = page.waitForResponse((r) => (r.request().postData() ?? '').includes('MarketAndTraders'));
        await page.locator('.graphiql-execute-button').click({ timeout: 30_000 });
        const result = await (await ran).json();
        expect(result.errors).toBeUndefined();
        expect(result.data.market.coin).toBe('BTC');
        expect(result.data.market.book.bids.length).toBeGreaterThan(0);
        const users = result.data.market.trades.flatMap((t: { users: unknown[] }) => t.users);
        expect(users.length).toBeGreaterThan(0);
        for (const user of users) {
          expect(user.address).toMatch(/^0x[0-9a-f]{40}$/);
          expect(user.fills.edges[0].node.closedPnl).toMatch(/^-?\d/);
        }
        await expect.poll(() => responseText(page), { timeout: 20_000 }).toContain('"market": {');
      });
      expect(browser.blocked).toEqual([]);
    }, 60_000);

    it('GraphiQL with ?api_key= runs a subscription over graphql-ws with it', async () => {
      await withPage(async (page) => {
        const operation = 'subscription { trades(coin: "BTC") { coin px sz } }';
        await page.goto(`${stack.urls.router}?api_key=${key}&query=${encodeURIComponent(operation)}`);
        await page.locator('.graphiql-execute-button').click({ timeout: 30_000 });
        await expect.poll(() => responseText(page), { timeout: 20_000 }).toMatch(/"px": "\d/);
      });
    }, 60_000);

    it('GraphiQL without a key says how to get one instead of showing a refused introspection', async () => {
      await withPage(async (page) => {
        const asked: string[] = [];
        page.on('request', (r) => asked.push(r.postData() ?? ''));
        await page.goto(stack.urls.router);
        const notice = await page.locator('.hl-notice').innerText();
        expect(notice).toContain('This server needs an API key: add ?api_key=YOUR_KEY to the address');
        expect(notice).toContain('npm run -s keys -- create --scope data');
        // GraphiQL introspects as its editor mounts: once the editor is there, it would have asked.
        await page.locator('.graphiql-execute-button').waitFor({ timeout: 30_000 });
        expect(asked.filter((body) => body.includes('__schema'))).toEqual([]);
      });
    }, 60_000);

    it('GraphiQL with a key the server does not know says it was refused', async () => {
      await withPage(async (page) => {
        await page.goto(`${stack.urls.router}?api_key=hlk_not-a-key`);
        await expect
          .poll(() => page.locator('.hl-notice').innerText(), { timeout: 20_000 })
          .toContain('The server refused the key (invalid api key)');
      });
    }, 60_000);

    it('the live page with ?api_key= fills its panels and links GraphiQL with the key', async () => {
      await withPage(async (page) => {
        await page.goto(`${stack.urls.compat}/?coin=BTC&api_key=${key}`);
        await expect.poll(() => page.locator('#status').innerText(), { timeout: 10_000 }).toBe('live');
        await expect.poll(() => page.locator('#markets tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(3);
        await expect.poll(() => page.locator('#trades tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
        await expect.poll(() => page.locator('#bids tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
        const updates = async () => Number(await page.locator('#chart').getAttribute('data-updates'));
        await expect.poll(updates, { timeout: 10_000 }).toBeGreaterThan(0);
        expect(await page.locator('#notice').isVisible()).toBe(false);
        const graphiql = new URL((await page.locator('#graphiql').getAttribute('href')) ?? '');
        expect(graphiql.searchParams.get('api_key')).toBe(key);
      });
    }, 60_000);

    it('the live page without a key says how to get one, and runs with the key typed in its field', async () => {
      await withPage(async (page) => {
        await page.goto(`${stack.urls.compat}/`);
        await expect.poll(() => page.locator('#notice').isVisible(), { timeout: 10_000 }).toBe(true);
        const notice = await page.locator('#notice').innerText();
        expect(notice).toContain('This server needs an API key: add ?api_key=YOUR_KEY to the address');
        expect(notice).toContain('npm run -s keys -- create --scope data');
        expect(await page.locator('#status').innerText()).toBe('needs an API key');
        expect(await page.locator('#key-field').isVisible()).toBe(true);
        await page.locator('#key').fill(key);
        await page.locator('#key').dispatchEvent('change');
        await expect.poll(() => page.locator('#status').innerText(), { timeout: 10_000 }).toBe('live');
        await expect.poll(() => page.locator('#trades tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
        expect(await page.locator('#notice').isVisible()).toBe(false);
      });
    }, 60_000);

    it('the live page with a key the server does not know says it was refused', async () => {
      await withPage(async (page) => {
        await page.goto(`${stack.urls.compat}/?api_key=hlk_not-a-key`);
        await expect
          .poll(() => page.locator('#notice').innerText(), { timeout: 10_000 })
          .toContain('The key was refused (invalid api key)');
      });
    }, 60_000);
  });
});
