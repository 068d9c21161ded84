// The node's other /info types, relayed: each reaches a small fake node with `type` and its documented fields only,
// and its answer comes back as the node sent it; a body missing a required field or holding a bad one is refused
// before the node is asked; a node failing is 502, refusing the body 400, down 502 `Upstream unreachable`; and
// every type the exchange's SDK knows is served (none is an `Unknown type`; asked last, as it fills the relay cache).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorBody } from '../../platform/error-codes.ts';
import { startCompatApp, type TestCompatApp } from '../../test/compat-app.ts';
import { INFO_TYPES } from './index.ts';

/** Every /info type of @nktkas/hyperliquid 0.33.3 (hyperliquid-wire.md §3, "Full SDK list"). */
const SDK_TYPES = `activeAssetData allBorrowLendReserveStates allMids allPerpMetas approvedBuilders
borrowLendReserveState borrowLendUserState candleSnapshot clearinghouseState delegations delegatorHistory
delegatorRewards delegatorSummary exchangeStatus extraAgents frontendOpenOrders fundingHistory
gossipPriorityAuctionStatus gossipRootIps historicalOrders isVip l2Book leadingVaults legalCheck liquidatable
marginTable maxBuilderFee maxMarketOrderNtls meta metaAndAssetCtxs openOrders orderStatus outcomeMeta
outcomeTemplates perpAnnotation perpCategories perpConciseAnnotations perpDeployAuctionStatus perpDexLimits
perpDexStatus perpDexs perpsAtOpenInterestCap portfolio preTransferCheck predictedFundings recentTrades referral
settledOutcome spotClearinghouseState spotDeployState spotMeta spotMetaAndAssetCtxs spotPairDeployAuctionStatus
subAccounts subAccounts2 tokenDetails twapHistory usdcRouting userAbstraction userBorrowLendInterest
userDexAbstraction userFees userFills userFillsByTime userFunding userNonFundingLedgerUpdates userRateLimit
userRole userToMultiSigSigners userTwapSliceFills userTwapSliceFillsByTime userVaultEquities validatorL1Votes
validatorSummaries vaultDetails vaultSummaries webData2`.split(/\s+/);

const USER = `0x${'Ab'.repeat(20)}`;
const OTHER = `0x${'cd'.repeat(20)}`;
const FAILING = `0x${'50'.repeat(20)}`;
const REFUSED = `0x${'42'.repeat(20)}`;

/** The relayed types added here, each with a body the exchange takes (sent as it is to the node). */
const RELAYED: Record<string, Record<string, unknown>> = {
  userFees: { user: USER },
  userRateLimit: { user: USER },
  userRole: { user: USER },
  portfolio: { user: USER },
  subAccounts: { user: USER },
  subAccounts2: { user: USER },
  userVaultEquities: { user: USER },
  delegations: { user: USER },
  delegatorSummary: { user: USER },
  delegatorHistory: { user: USER },
  delegatorRewards: { user: USER },
  extraAgents: { user: USER },
  approvedBuilders: { user: USER },
  referral: { user: USER },
  isVip: { user: USER },
  legalCheck: { user: USER },
  spotDeployState: { user: USER },
  userToMultiSigSigners: { user: USER },
  userAbstraction: { user: USER },
  userDexAbstraction: { user: USER },
  webData2: { user: USER },
  activeAssetData: { user: USER, coin: 'BTC' },
  maxBuilderFee: { user: USER, builder: OTHER },
  preTransferCheck: { user: USER, source: OTHER },
  userBorrowLendInterest: { user: USER, startTime: 1_700_000_000_000, endTime: 1_700_000_100_000 },
  vaultDetails: { vaultAddress: OTHER, user: USER },
  allPerpMetas: {},
  perpsAtOpenInterestCap: { dex: '' },
  perpDexLimits: { dex: 'xyz' },
  perpDexStatus: { dex: 'xyz' },
  perpAnnotation: { coin: 'BTC' },
  perpCategories: {},
  perpConciseAnnotations: {},
  predictedFundings: {},
  exchangeStatus: {},
  liquidatable: {},
  perpDeployAuctionStatus: {},
  spotPairDeployAuctionStatus: {},
  gossipPriorityAuctionStatus: {},
  gossipRootIps: {},
  tokenDetails: { tokenId: `0x${'0f'.repeat(16)}` },
  borrowLendReserveState: { token: 150 },
  usdcRouting: {},
  outcomeMeta: {},
  outcomeTemplates: {},
  settledOutcome: { outcome: 12 },
  validatorSummaries: {},
  validatorL1Votes: {},
  vaultSummaries: {},
};

/** What the fake node was sent, in order. */
const received: Record<string, unknown>[] = [];
let node: http.Server;
let compat: TestCompatApp;
let down: TestCompatApp;

beforeAll(async () => {
  // Answers every body with what it got; a user of FAILING fails (500), one of REFUSED is refused (422), as a node.
  node = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      const body = JSON.parse(text) as Record<string, unknown>;
      received.push(body);
      if (body.user === FAILING) return res.writeHead(500).end('internal');
      if (body.user === REFUSED) {
        res.writeHead(422, { 'content-type': 'text/plain' });
        return res.end('Failed to deserialize the JSON body into the target type');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ node: 'fake', got: body }));
    });
  });
  await new Promise<void>((r) => node.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/info`;
  [compat, down] = await Promise.all([
    startCompatApp({ data: 'empty', node: { url } }),
    startCompatApp({ data: 'empty', node: 'down' }),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([compat?.close(), down?.close()]);
  await new Promise((r) => node?.close(r));
});

describe("the node's other /info types", () => {
  it.each(Object.entries(RELAYED))(
    '%s: relayed with its documented fields only, answered as the node sent it',
    async (type, fields) => {
      received.length = 0;
      // A field clients add that the type does not read (`dex`, request-schema.ts CLIENT_EXTRAS) travels nowhere.
      const takesDex = Object.hasOwn((INFO_TYPES[type]?.schema.properties ?? {}) as object, 'dex');
      const r = await compat.info({ type, ...(takesDex ? {} : { dex: 'x'.repeat(20) }), ...fields });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ node: 'fake', got: { type, ...fields } });
      expect(received).toEqual([{ type, ...fields }]);
      // Any other field it does not take is refused, and the node asked nothing.
      const refused = await compat.info({ type, ...fields, pad: 'x' });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatch(/^pad: unknown parameter; it takes type/);
      expect(received).toHaveLength(1);
    },
  );

  it('refuses a body without a required field or with a bad one, and asks the node nothing', async () => {
    received.length = 0;
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'userFees' }, 'user: is required, must be a 0x address'],
      [{ type: 'subAccounts', user: '0x12' }, 'user: must be a 0x address, got "0x12"'],
      [{ type: 'delegations', user: 12 }, 'user: must be a 0x address, got 12'],
      [{ type: 'maxBuilderFee', user: USER }, 'builder: is required, must be a 0x address'],
      [{ type: 'activeAssetData', user: USER, coin: '' }, 'coin: must be a non-empty string, got ""'],
      [{ type: 'vaultDetails', user: USER }, 'vaultAddress: is required, must be a 0x address'],
      [
        { type: 'tokenDetails', tokenId: '0x12' },
        'tokenId: must be a token id (0x followed by 32 hex digits), got "0x12"',
      ],
      [{ type: 'perpDexStatus' }, 'dex: is required, must be a string'],
      [{ type: 'borrowLendReserveState', token: -1 }, 'token: must be an integer from 0 to 4294967295, got -1'],
      // Null is "not given" on every type: a required field sent as null is refused, not relayed.
      [{ type: 'settledOutcome', outcome: null }, 'outcome: must be an integer >= 0, got null'],
      [{ type: 'openOrders', user: '0x12' }, 'user: must be a 0x address, got "0x12"'],
      [
        { type: 'userBorrowLendInterest', user: USER },
        'startTime: is required, must be an integer of epoch milliseconds',
      ],
    ];
    for (const [body, error] of cases) {
      const r = await compat.info(body);
      expect({ body, status: r.status, error: r.body?.error }).toEqual({
        body,
        status: 400,
        error: expect.stringContaining(error),
      });
    }
    expect(received).toEqual([]);
  });

  it('caches metadata types on their documented fields: a second ask, padded differently, is not relayed', async () => {
    received.length = 0;
    // Padded in `dex`, which clients add and perpAnnotation does not read.
    const first = await compat.info({ type: 'perpAnnotation', coin: 'ETH', dex: '1' });
    const second = await compat.info({ type: 'perpAnnotation', coin: 'ETH', dex: '2' });
    expect(second.body).toEqual(first.body);
    expect(received).toEqual([{ type: 'perpAnnotation', coin: 'ETH' }]);
  });

  it('does not cache user state: each ask reaches the node', async () => {
    received.length = 0;
    await compat.info({ type: 'userFees', user: USER });
    await compat.info({ type: 'userFees', user: USER });
    expect(received).toHaveLength(2);
  });

  it('answers 502 when the node fails and 400 quoting it when it refuses the body', async () => {
    const failed = await compat.info({ type: 'userFees', user: FAILING });
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual(errorBody('upstream_error', 'Upstream error: status 500: internal'));
    const refused = await compat.info({ type: 'subAccounts', user: REFUSED });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^body: refused by the node \(422\): Failed to deserialize/);
  });

  it('answers 502 Upstream unreachable when the node is down', async () => {
    for (const type of ['userFees', 'subAccounts', 'delegations']) {
      const r = await down.info({ type, user: USER });
      expect(r.status).toBe(502);
      expect(r.body.error).toMatch(/^Upstream unreachable: /);
      expect(r.body.code).toBe('upstream_unreachable');
    }
    const vaults = await down.info({ type: 'vaultSummaries' });
    expect(vaults.status).toBe(502);
  });

  it('knows every type of the exchange SDK: none answers Unknown type', async () => {
    const unknown: string[] = [];
    for (const type of SDK_TYPES) {
      const r = await compat.info({ type });
      if (r.status === 400 && String(r.body?.error).startsWith('Unknown type')) unknown.push(type);
    }
    expect(unknown).toEqual([]);
  });
});
