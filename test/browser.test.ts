// The pages people open in a browser, in headless Chromium with the network off but loopback: the router's
// GraphiQL running a query and a subscription, compat's docs page rendering the OpenAPI document, and compat's live
// page showing trades and a moving chart.
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

  /** GraphiQL opened with an operation in its editor, run with its execute button; the response pane's text. */
  async function runInGraphiQL(operation: string, expected: RegExp): Promise<string> {
    const page = await browser.context.newPage();
    try {
      await page.goto(`${stack.urls.router}?query=${encodeURIComponent(operation)}`);
      await page.locator('.graphiql-execute-button').click({ timeout: 30_000 });
      // The response editor (Monaco) renders spaces as no-break spaces.
      const response = async () => (await page.locator('.graphiql-response').innerText()).replaceAll('\u00a0', ' ');
      await expect.poll(response, { timeout: 20_000 }).toMatch(expected);
      return await response();
    } finally {
      await page.close();
    }
  }

  it('GraphiQL runs a query', async () => {
    const text = await runInGraphiQL('{ market(coin: "BTC") { coin mid } }', /"mid": "\d/);
    expect(text).toContain('"coin": "BTC"');
    expect(browser.blocked).toEqual([]);
  }, 60_000);

  it('GraphiQL runs a subscription', async () => {
    const text = await runInGraphiQL('subscription { trades(coin: "BTC") { coin px sz } }', /"px": "\d/);
    expect(text).toContain('"coin": "BTC"');
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

  // Last: once a key exists, every request of the other tests would need it.
  it('the live page asks for a key once keys exist, and runs with it', async () => {
    const { key } = await createKey(stack.db.pool, { scope: 'data', credits: null, label: 'live page' });
    stack.auth.invalidate();
    const page = await browser.context.newPage();
    try {
      await page.goto(`${stack.urls.compat}/`);
      await expect.poll(() => page.locator('#key-field').isVisible(), { timeout: 10_000 }).toBe(true);
      await expect.poll(() => page.locator('#status').innerText(), { timeout: 10_000 }).toMatch(/missing api key/);
      await page.locator('#key').fill(key);
      await page.locator('#key').dispatchEvent('change');
      await expect.poll(() => page.locator('#status').innerText(), { timeout: 10_000 }).toBe('live');
      await expect.poll(() => page.locator('#trades tbody tr').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  }, 60_000);
});
