// The EVM compat routes on hand-written node lines (test/evm-history.ts: HyperEVM blocks, ledger events, backstop
// fills) loaded by the real ingest: exact holder balances after mints, transfers and burns, the backstop principal
// summary and health (404 for a dex never seen), agent sends with both dex names, paging without loss or repeat, and
// every 400.

import { graphql } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody } from '../../../platform/error-codes.ts';
import type { Address } from '../../../platform/fields.ts';
import { startCompatApp, type TestCompatApp } from '../../../test/compat-app.ts';
import {
  ALICE,
  BACKSTOP,
  BOB,
  BRIDGE,
  CAROL,
  DAVE,
  DEPLOYER,
  loadEvmHistory,
  NFT,
  SEND,
  SUB,
  T,
  TOKEN,
} from '../../../test/evm-history.ts';
import { addr, hash } from '../../../test/node-files.ts';
import { evmSchema } from '../schema/index.ts';

let c: TestCompatApp;

beforeAll(async () => {
  c = await startCompatApp({ data: 'empty' });
  await loadEvmHistory(c.db);
}, 120_000);
afterAll(async () => {
  await c?.close();
});

describe('token holders', () => {
  it('holds the balances left by mints, transfers and burns, largest first, in the data envelope', async () => {
    const res = await c.get(`/hyperevm/testnet/tokens/${TOKEN}/holders`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual([
      'success',
      'message',
      'data',
      'execution_time_ms',
      'has_more',
      'next_cursor',
    ]);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.success).toBe(true);
    expect(res.body.has_more).toBe(false);
    expect(Number.isInteger(res.body.execution_time_ms)).toBe(true);
    // 1000 minted to Alice, 500 bridged to Bob; Alice sends 250 to Bob, 100 to Carol; Bob burns 50; Carol sends 95
    // to Dave. Total 1450; balances of 7 to 9 digits sort as numbers.
    expect(res.body.data).toEqual([
      { address: BOB, balance_raw: '700000000', balance: 700, share: 0.482758620689 },
      { address: ALICE, balance_raw: '650000000', balance: 650, share: 0.448275862068 },
      { address: DAVE, balance_raw: '95000000', balance: 95, share: 0.065517241379 },
      { address: CAROL, balance_raw: '5000000', balance: 5, share: 0.003448275862 },
    ]);
  });

  it('counts the tokens held for an ERC-721, and a checksummed address is the same token', async () => {
    const res = await c.get(`/hyperliquid/testnet/tokens/${NFT.toUpperCase().replace('0X', '0x')}/holders`);
    expect(res.body.data.map((h: { address: string; balance: number }) => [h.address, h.balance])).toEqual([
      [ALICE, 1],
      [BOB, 1],
      [CAROL, 1],
    ]);
  });

  it('pages with limit and offset without losing or repeating a holder', async () => {
    const all = (await c.get(`/hyperevm/testnet/tokens/${TOKEN}/holders`)).body.data;
    const seen: unknown[] = [];
    const more: boolean[] = [];
    for (let offset = 0; offset < 4; offset++) {
      const res = await c.get(`/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1&offset=${offset}`);
      seen.push(...res.body.data);
      more.push(res.body.has_more);
    }
    expect(seen).toEqual(all);
    expect(more).toEqual([true, true, true, false]);
  });

  it('pages by keyset cursor beside offset, each holder once', async () => {
    const all = (await c.get(`/hyperevm/testnet/tokens/${TOKEN}/holders`)).body.data;
    const seen: unknown[] = [];
    let path = `/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1`;
    for (;;) {
      const res = await c.get(path);
      seen.push(...res.body.data);
      if (!res.body.has_more) break;
      path = `/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1&cursor=${res.body.next_cursor}`;
    }
    expect(seen).toEqual(all);
  });

  it('answers the same holders and cursor through the evm subgraph schema', async () => {
    const rest = (await c.get(`/hyperevm/testnet/tokens/${TOKEN}/holders?limit=2`)).body;
    const page = await graphql({
      schema: evmSchema,
      source: `query ($t: String!, $after: String) {
        evmToken(address: $t) { symbol standard holders(limit: 2, after: $after) { hasMore endCursor totalRaw nodes { address balanceRaw balance share } } }
      }`,
      variableValues: { t: TOKEN },
      contextValue: { evm: c.services.evm },
    });
    expect(page.errors).toBeUndefined();
    const holders = JSON.parse(JSON.stringify(page.data)).evmToken.holders;
    expect(holders.nodes).toEqual(
      rest.data.map((h: { address: string; balance_raw: string; balance: number; share: number }) => ({
        address: h.address,
        balanceRaw: h.balance_raw,
        balance: h.balance,
        share: h.share,
      })),
    );
    expect([holders.hasMore, holders.endCursor, holders.totalRaw]).toEqual([true, rest.next_cursor, '1450000000']);
    const next = await graphql({
      schema: evmSchema,
      source:
        'query ($t: String!, $after: String) { evmToken(address: $t) { holders(after: $after) { nodes { address } } } }',
      variableValues: { t: TOKEN, after: holders.endCursor },
      contextValue: { evm: c.services.evm },
    });
    expect(JSON.parse(JSON.stringify(next.data)).evmToken.holders.nodes).toEqual([
      { address: DAVE },
      { address: CAROL },
    ]);
    const bad = await graphql({
      schema: evmSchema,
      source: `{ evmToken(address: "${TOKEN}") { holders(after: "x") { hasMore } } }`,
      contextValue: { evm: c.services.evm },
    });
    expect(bad.errors?.[0]?.message).toMatch(/^after: /);
  });

  it('answers 404 for a chain it does not serve, and an empty page for a token never seen', async () => {
    const res = await c.get(`/ethereum/testnet/tokens/${TOKEN}/holders`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual(errorBody('not_found', "Unknown chain 'ethereum': served are hyperevm, hyperliquid"));
    const none = await c.get(`/hyperevm/testnet/tokens/${addr(0xeeee)}/holders`);
    expect(none.body.data).toEqual([]);
    expect(none.body.has_more).toBe(false);
  });
});

describe('the holders page written from its rows', () => {
  // The route writes each holder's JSON from the statement's text (service eachHolderJson); the service's page
  // (tokenHolders, holder objects) is the other reading of the same rows: the answers must be the same JSON.
  const pages: [string, { token: string; limit: number; offset: number; cursor?: string }][] = [
    ['the first page, more to follow', { token: TOKEN, limit: 2, offset: 0 }],
    ['the page ending on the last holder', { token: TOKEN, limit: 2, offset: 2 }],
    ['one past the last holder', { token: TOKEN, limit: 2, offset: 4 }],
    ['a token never seen', { token: addr(0xeeee), limit: 100, offset: 0 }],
    ['an ERC-721', { token: NFT, limit: 1000, offset: 0 }],
  ];
  it.each(pages)('%s: the same envelope and bytes as the service page', async (_, q) => {
    const res = await c.get(`/hyperevm/testnet/tokens/${q.token}/holders?limit=${q.limit}&offset=${q.offset}`);
    const page = await c.services.evm.tokenHolders({ ...q, token: q.token as Address });
    const envelope = {
      success: true,
      message: 'ok',
      data: page.rows,
      execution_time_ms: res.body.execution_time_ms,
      has_more: page.hasMore,
      next_cursor: page.nextCursor,
    };
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual(envelope);
    expect(res.text).toBe(JSON.stringify(envelope));
  });

  it('pages by cursor across a page boundary as the service does', async () => {
    const first = await c.services.evm.tokenHolders({ token: TOKEN as Address, limit: 3, offset: 0 });
    const cursor = first.nextCursor as string;
    const res = await c.get(`/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1&cursor=${cursor}`);
    const page = await c.services.evm.tokenHolders({ token: TOKEN as Address, limit: 1, offset: 0, cursor });
    expect(page.rows).toHaveLength(1);
    expect([res.body.data, res.body.has_more, res.body.next_cursor]).toEqual([
      page.rows,
      page.hasMore,
      page.nextCursor,
    ]);
  });
});

describe('/evm/transactions', () => {
  it('leaves system transactions out unless asked, newest first', async () => {
    const res = await c.get('/evm/transactions');
    expect(res.status).toBe(200);
    expect(res.body.data.map((t: { block_number: number; tx_index: number }) => [t.block_number, t.tx_index])).toEqual([
      [102, 1],
      [102, 0],
      [101, 1],
      [101, 0],
      [100, 0],
    ]);
    const withSystem = await c.get('/evm/transactions?include_system=true&block_number=100');
    expect(withSystem.body.data).toEqual([
      {
        block_time: new Date(T).toISOString().slice(0, 23),
        block_number: 100,
        tx_index: 1,
        tx_hash: hash(0x1002),
        tx_type: 0,
        from_addr: BRIDGE,
        to_addr: TOKEN,
        value_wei: '0',
        gas_limit: 0,
        gas_used: 0,
        success: 1,
        input_len: 68,
        is_system_tx: 1,
      },
      expect.objectContaining({ tx_index: 0, is_system_tx: 0, from_addr: ALICE }),
    ]);
  });

  it('filters by recipient and time window, and pages without loss or repeat', async () => {
    const toToken = await c.get(`/evm/transactions?to_addr=${TOKEN}`);
    expect(toToken.body.data.map((t: { tx_hash: string }) => t.tx_hash)).toEqual([
      hash(0x1005),
      hash(0x1003),
      hash(0x1001),
    ]);
    const window = await c.get(`/evm/transactions?start_time=${T + 1000}&end_time=${new Date(T + 1000).toISOString()}`);
    expect(window.body.data.map((t: { block_number: number }) => t.block_number)).toEqual([101, 101]);
    const all = (await c.get('/evm/transactions?include_system=true')).body.data;
    const paged: unknown[] = [];
    for (let offset = 0; ; offset += 2) {
      const page = await c.get(`/evm/transactions?include_system=true&limit=2&offset=${offset}`);
      paged.push(...page.body.data);
      if (!page.body.has_more) break;
    }
    expect(paged).toEqual(all);
    expect(all).toHaveLength(6);
  });
});

describe('backstops', () => {
  it('sums principal per dex: deposits, withdrawals, net and signers', async () => {
    const res = await c.get('/evm/hip3/backstop/transfers-summary');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        dex_id: 'abc',
        total_deposited_usdc: '2000.0',
        total_withdrawn_usdc: '0.0',
        net_principal_usdc: '2000.0',
        unique_signers: 1,
        transfer_count: 1,
      },
      {
        dex_id: 'xyz',
        total_deposited_usdc: '15000.5',
        total_withdrawn_usdc: '3000.25',
        net_principal_usdc: '12000.25',
        unique_signers: 2,
        transfer_count: 3,
      },
    ]);
    const none = await c.get(`/evm/hip3/backstop/transfers-summary?dex=xyz&end_time=${T + 1000}`);
    expect(none.body.data).toEqual([]);
  });

  it('lists principal transfers by dex, signer and direction', async () => {
    const res = await c.get(`/evm/hip3/backstop/transfers?dex=xyz&signer=${DEPLOYER}&is_deposit=false`);
    expect(res.body.data).toEqual([
      {
        time: new Date(T + 2000).toISOString().slice(0, 23),
        block_number: 102,
        tx_hash: hash(0x2003),
        dex_id: 'xyz',
        is_deposit: false,
        signer: DEPLOYER,
        amount: '3000.25',
      },
    ]);
    expect(res.body.has_more).toBe(false);
  });

  it("reports a dex's health: principal and the fills its backstop absorbed", async () => {
    const res = await c.get('/evm/hip3/backstop/xyz/health');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      dex_id: 'xyz',
      backstop_address: BACKSTOP,
      dex_index: 1,
      principal_deposited_usdc: '15000.5',
      principal_withdrawn_usdc: '3000.25',
      net_principal_usdc: '12000.25',
      fill_count: 2,
      notional_traded: '301.0',
      fees_paid: '0.15',
      fills_last_24h: 2,
      first_fill_time: new Date(T + 1000).toISOString().slice(0, 23),
      last_fill_time: new Date(T + 2000).toISOString().slice(0, 23),
      coins_active: ['xyz:XYZ100'],
    });
    const all = await c.get('/evm/hip3/backstop/health');
    expect(
      all.body.data.map((h: { dex_id: string; backstop_address: string | null }) => [h.dex_id, h.backstop_address]),
    ).toEqual([
      ['abc', null],
      ['xyz', BACKSTOP],
    ]);
  });

  it('answers 404 for a dex never observed', async () => {
    for (const path of ['/evm/hip3/backstop/nope/health', '/evm/hip3/backstop/nope/fills']) {
      const res = await c.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(errorBody('not_found', "No backstop activity recorded for dex 'nope'"));
    }
  });

  it('pages the absorbed fills by cursor, newest first, each once', async () => {
    const first = await c.get('/evm/hip3/backstop/xyz/fills?limit=1');
    expect(first.status).toBe(200);
    expect(first.body.data.map((f: { tid: number }) => f.tid)).toEqual([502]);
    expect(first.body.has_more).toBe(true);
    const second = await c.get(`/evm/hip3/backstop/xyz/fills?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((f: { tid: number; user: string }) => [f.tid, f.user])).toEqual([[501, BACKSTOP]]);
    expect(second.body.has_more).toBe(false);
    const none = await c.get('/evm/hip3/backstop/xyz/fills?side=A');
    expect(none.body.data).toEqual([]);
  });

  it("pages them by the reference's offset too, the same fills in the same order; never offset and cursor at once", async () => {
    const page = async (offset: number) => (await c.get(`/evm/hip3/backstop/xyz/fills?limit=1&offset=${offset}`)).body;
    expect(await page(0)).toMatchObject({ data: [{ tid: 502 }], has_more: true });
    expect(await page(1)).toMatchObject({ data: [{ tid: 501, user: BACKSTOP }], has_more: false });
    expect(await page(2)).toMatchObject({ data: [], has_more: false });
    expect(await page(100_000_000)).toMatchObject({ data: [], has_more: false });
    const cursor = (await page(0)).next_cursor;
    const both = await c.get(`/evm/hip3/backstop/xyz/fills?offset=1&cursor=${cursor}`);
    expect([both.status, both.body]).toEqual([
      400,
      errorBody('bad_input', 'offset: not with cursor (page by one or the other)'),
    ]);
    for (const offset of ['-1', '100000001', 'x']) {
      const bad = await c.get(`/evm/hip3/backstop/xyz/fills?offset=${offset}`);
      expect(bad.status, offset).toBe(400);
      expect(bad.body.error).toMatch(/offset/);
    }
  });
});

describe('ledger', () => {
  it("lists a user's agent_send with both dex names, and filters by repeated event_type", async () => {
    const res = await c.get(`/evm/user/${ALICE}/ledger-events?event_type=agent_send`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        time: new Date(T + 1000).toISOString().slice(0, 23),
        time_ms: T + 1000,
        hash: hash(0x3002),
        event_type: 'agent_send',
        delta_type: 'send',
        delta: SEND,
        source_dex: '',
        destination_dex: 'xyz',
      },
    ]);
    const two = await c.get(`/evm/user/${ALICE}/ledger-events?event_type=deposit&event_type=transfer_out`);
    expect(two.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['transfer_out', 'deposit']);
    const carol = await c.get(`/evm/user/${CAROL}/ledger-events`);
    expect(carol.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['transfer_in']);
    const bob = await c.get(`/evm/user/${BOB}/ledger-events`);
    expect(
      bob.body.data.map((e: { event_type: string; destination_dex: string }) => [e.event_type, e.destination_dex]),
    ).toEqual([['agent_send', 'xyz']]);
  });

  it('pages ledger events without loss or repeat', async () => {
    const all = (await c.get(`/evm/user/${ALICE}/ledger-events`)).body.data;
    expect(all).toHaveLength(3);
    const paged = [];
    for (let offset = 0; offset < 3; offset++) {
      paged.push(...(await c.get(`/evm/user/${ALICE}/ledger-events?limit=1&offset=${offset}`)).body.data);
    }
    expect(paged).toEqual(all);
  });

  it('filters ledger transfers by action_type agentSendAsset, with source and destination dex', async () => {
    const res = await c.get('/evm/ledger/transfers?action_type=agentSendAsset');
    expect(res.body.data).toEqual([
      {
        time: new Date(T + 1000).toISOString().slice(0, 23),
        block_number: expect.any(Number),
        hash: hash(0x3002),
        action_type: 'agentSendAsset',
        user: ALICE,
        destination: BOB,
        token: 'USDC',
        amount: '25.0',
        usdc_value: '25.0',
        fee: '0.0',
        source_dex: '',
        destination_dex: 'xyz',
      },
    ]);
    const byDex = await c.get('/evm/ledger/transfers?destination_dex=xyz&source_dex=');
    expect(byDex.body.data).toHaveLength(1);
    const other = await c.get(`/evm/ledger/transfers?user=${CAROL}`);
    expect(other.body.data.map((t: { action_type: string }) => t.action_type)).toEqual(['internalTransfer']);
  });
});

describe('the evm subgraph schema over the same data', () => {
  it("answers a Dex's backstop side and a sender's ledger events as the routes do", async () => {
    const res = await graphql({
      schema: evmSchema,
      source: `query ($hash: String!) {
        backstopDex(name: "xyz") {
          backstopSummary { totalDepositedUsdc netPrincipalUsdc uniqueSigners }
          backstopTransfers(limit: 1, offset: 1) { hasMore nodes { amount isDeposit signer { address } } }
          backstopHealth { fillCount backstopAddress }
          absorbedFills(first: 1) { hasMore nodes { tid market { coin } backstop { address } } }
        }
        transaction(hash: $hash) {
          sender {
            ledgerEvents(eventTypes: [agent_send]) { nodes { eventType sourceDex destinationDex } }
            ledgerTransfers(limit: 5) { nodes { actionType sourceDex destinationDex } }
          }
          block { number txCount }
        }
      }`,
      variableValues: { hash: hash(0x1001) },
      contextValue: { evm: c.services.evm },
    });
    expect(res.errors).toBeUndefined();
    expect(JSON.parse(JSON.stringify(res.data))).toEqual({
      backstopDex: {
        backstopSummary: { totalDepositedUsdc: '15000.5', netPrincipalUsdc: '12000.25', uniqueSigners: 2 },
        backstopTransfers: { hasMore: true, nodes: [{ amount: '5000.5', isDeposit: true, signer: { address: SUB } }] },
        backstopHealth: { fillCount: 2, backstopAddress: BACKSTOP },
        absorbedFills: {
          hasMore: true,
          nodes: [{ tid: '502', market: { coin: 'xyz:XYZ100' }, backstop: { address: BACKSTOP } }],
        },
      },
      transaction: {
        sender: {
          ledgerEvents: { nodes: [{ eventType: 'agent_send', sourceDex: '', destinationDex: 'xyz' }] },
          ledgerTransfers: {
            nodes: [
              { actionType: 'internalTransfer', sourceDex: '', destinationDex: '' },
              { actionType: 'agentSendAsset', sourceDex: '', destinationDex: 'xyz' },
            ],
          },
        },
        block: { number: 100, txCount: 2 },
      },
    });
  });
});

describe('the limits at their edges', () => {
  it.each([
    `/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1`,
    `/hyperevm/testnet/tokens/${TOKEN}/holders?limit=1000&offset=0`,
    '/evm/transactions?limit=1',
    '/evm/transactions?limit=1000',
    '/evm/ledger/transfers?limit=1000',
    `/evm/user/${ALICE}/ledger-events?limit=1000`,
    '/evm/hip3/backstop/transfers?limit=1000',
    '/evm/hip3/backstop/xyz/fills?limit=1000',
  ])('%s is answered', async (path) => {
    const res = await c.get(path);
    expect(res.status).toBe(200);
    const limit = Number(new URL(path, 'http://x').searchParams.get('limit'));
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    expect(res.body.data.length).toBeGreaterThan(0);
  });
});

describe('every 400 names its field', () => {
  const holders = `/hyperevm/testnet/tokens/${TOKEN}/holders`;
  const cases: [string, string][] = [
    [`${holders}?limit=0`, 'limit'],
    [`${holders}?limit=1001`, 'limit'],
    [`${holders}?offset=-1`, 'offset'],
    [`${holders}?offset=x`, 'offset'],
    [`${holders}?cursor=${'9'.repeat(5)}:${BOB}&offset=1`, 'offset'],
    [`${holders}?cursor=abc`, 'cursor'],
    ['/hyperevm/testnet/tokens/0x1234/holders', 'address'],
    ['/evm/transactions?limit=0', 'limit'],
    ['/evm/transactions?limit=1001', 'limit'],
    ['/evm/transactions?offset=-1', 'offset'],
    ['/evm/transactions?block_number=-1', 'block_number'],
    ['/evm/transactions?to_addr=0xabc', 'to_addr'],
    ['/evm/transactions?include_system=maybe', 'include_system'],
    ['/evm/transactions?start_time=yesterday', 'start_time'],
    [`/evm/transactions?start_time=${T + 1}&end_time=${T}`, 'start_time'],
    ['/evm/ledger/transfers?action_type=send', 'action_type'],
    ['/evm/ledger/transfers?user=bob', 'user'],
    ['/evm/ledger/transfers?limit=1001', 'limit'],
    ['/evm/ledger/transfers?end_time=99999999999999999999', 'end_time'],
    ['/evm/user/0xnothex/ledger-events', 'address'],
    [`/evm/user/${ALICE}/ledger-events?event_type=airdrop`, 'event_type'],
    [`/evm/user/${ALICE}/ledger-events?offset=-5`, 'offset'],
    ['/evm/hip3/backstop/transfers?is_deposit=maybe', 'is_deposit'],
    ['/evm/hip3/backstop/transfers?signer=0x12', 'signer'],
    ['/evm/hip3/backstop/transfers?limit=5000', 'limit'],
    [`/evm/hip3/backstop/transfers-summary?start_time=${T + 1}&end_time=${T}`, 'start_time'],
    ['/evm/hip3/backstop/transfers-summary?end_time=soon', 'end_time'],
    ['/evm/hip3/backstop/xyz/fills?side=C', 'side'],
    ['/evm/hip3/backstop/xyz/fills?limit=1001', 'limit'],
    ['/evm/hip3/backstop/xyz/fills?cursor=abc', 'cursor'],
    [`/evm/hip3/backstop/${'d'.repeat(33)}/health`, 'dex'],
  ];
  it.each(cases)('%s → 400 naming %s', async (path, field) => {
    const res = await c.get(path);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['error', 'code', 'msg']);
    expect(res.body.code).toBe('bad_input');
    expect(res.body.error).toContain(field);
  });
});
