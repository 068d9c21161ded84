// The /info answer schemas of the OpenAPI document are honest: every type is asked over HTTP of a compat server
// with 20 minutes of simulated history and a simulated node, and its real answer validated (Ajv, JSON Schema
// 2020-12 as OpenAPI 3.1 uses it) against the schema the served document names for it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompatApp, type TestCompatApp } from '../test/compat-app.ts';
import { INFO_TYPES, infoResponseName } from './info/index.ts';

let compat: TestCompatApp;
// biome-ignore lint/suspicious/noExplicitAny: the served document, read as JSON
let doc: any;
/** The bodies each type is asked with, filled in from the stored history. */
let bodies: Record<string, Record<string, unknown>[]> = {};

/** Types whose answer this test cannot produce, with why. */
const SKIPPED: Record<string, string> = Object.fromEntries(
  [
    ...['userRateLimit', 'portfolio', 'subAccounts2', 'userVaultEquities', 'delegatorSummary', 'delegatorHistory'],
    ...['delegatorRewards', 'extraAgents', 'approvedBuilders', 'referral', 'isVip', 'legalCheck', 'spotDeployState'],
    ...['userToMultiSigSigners', 'userAbstraction', 'userDexAbstraction', 'webData2', 'activeAssetData'],
    ...['maxBuilderFee', 'preTransferCheck', 'userBorrowLendInterest', 'vaultDetails', 'allPerpMetas'],
    ...['perpsAtOpenInterestCap', 'perpDexLimits', 'perpDexStatus', 'perpAnnotation', 'perpCategories'],
    ...['perpConciseAnnotations', 'predictedFundings', 'liquidatable', 'perpDeployAuctionStatus'],
    ...['spotPairDeployAuctionStatus', 'gossipPriorityAuctionStatus', 'gossipRootIps', 'tokenDetails'],
    ...['borrowLendReserveState', 'usdcRouting', 'outcomeMeta', 'outcomeTemplates', 'settledOutcome'],
    ...['validatorSummaries', 'validatorL1Votes'],
  ].map((type) => [
    type,
    'relayed as the node answers (its schema says so and holds any JSON); the simulated node does not answer it',
  ]),
);

/** Types whose answer may be an empty list (or a result list) here, with why; every other list must hold rows. */
const MAY_BE_EMPTY: Record<string, string> = {
  leadingVaults: "the simulated node names a vault only for its first maker, whose address the store doesn't say",
  delegations: 'no simulated user delegates stake',
};

beforeAll(async () => {
  compat = await startCompatApp({ listen: true });
  doc = await (await fetch(`${compat.urls.compat}/openapi.json`)).json();
  const pool = compat.db.pool;
  const one = async (sql: string) => (await pool.query(sql)).rows[0];
  const trader = (await one('SELECT address FROM accounts.fills GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')).address;
  const twap = await one('SELECT address, twap_id FROM accounts.fills WHERE twap_id IS NOT NULL LIMIT 1');
  const order = await one('SELECT address, oid FROM accounts.order_statuses LIMIT 1');
  const twapper = await one('SELECT address FROM accounts.twap_statuses GROUP BY 1 ORDER BY count(*) DESC LIMIT 1');
  const ledger = await one('SELECT address FROM accounts.ledger_updates GROUP BY 1 ORDER BY count(*) DESC LIMIT 1');
  const { start } = await one('SELECT min(time)::int8 AS start FROM accounts.fills');
  // 20 minutes hold no funding hour: a few rates and payments, as ingest would store them.
  const now = Date.now();
  await pool.query(
    `INSERT INTO markets.funding_rates SELECT 'BTC', $1::bigint - i * 3600000, 0.0000125 * i, -0.0001 FROM generate_series(1, 3) i`,
    [now],
  );
  await pool.query(
    `INSERT INTO accounts.funding_payments SELECT 0, $1::bigint - i * 3600000, $2, 'BTC', -1.5 * i, 0.2, 0.0000125
     FROM generate_series(1, 3) i`,
    [now, trader],
  );
  // The simulated ledger holds no borrow or lend: a supply and a borrow, as ingest stores them.
  const lender = `0x${'b1'.repeat(20)}`;
  await pool.query(
    `INSERT INTO accounts.ledger_updates
     SELECT 0, $1::bigint - i * 60000, '0x' || lpad(to_hex(i), 64, '0'), $2, 'borrowLend', jsonb_build_object(
       'type', 'borrowLend', 'token', (ARRAY['0', '150'])[i], 'operation', (ARRAY['supply', 'borrow'])[i],
       'amount', '100.5', 'interestAmount', '0.0')
     FROM generate_series(1, 2) i`,
    [now, lender],
  );
  const coin = 'BTC';
  bodies = {
    meta: [{}, { dex: '' }],
    spotMeta: [{}],
    perpDexs: [{}],
    marginTable: [{ id: 56 }, { id: 0 }],
    maxMarketOrderNtls: [{}],
    leadingVaults: [{ user: trader }],
    metaAndAssetCtxs: [{}],
    spotMetaAndAssetCtxs: [{}],
    allMids: [{}],
    l2Book: [{ coin }, { coin, nSigFigs: 2 }, { coin: 'NOPE' }],
    l2Books: [{ coins: [coin, 'ETH', 'NOPE'] }],
    availableDates: [{}, { coin, dataset: 'trades' }],
    candleSnapshot: [{ req: { coin, interval: '1m', startTime: now - 3_600_000 } }],
    recentTrades: [{ coin }],
    trades: [{ coin, limit: 5 }],
    fundingHistory: [{ coin, startTime: 0 }],
    currentDepth: [{ coin }],
    dataCoverage: [{}],
    allBorrowLendReserveStates: [{}],
    borrowLendReserveHistory: [{ limit: 5 }, { token: 0, interval: '1h' }],
    openOrders: [{ user: trader }],
    frontendOpenOrders: [{ user: trader }],
    spotClearinghouseState: [{ user: trader }],
    clearinghouseState: [{ user: trader }, { users: [trader, order.address] }],
    userFills: [{ user: trader }, { user: trader, aggregateByTime: true }],
    userFillsByTime: [{ user: trader, startTime: 0 }],
    fills: [
      { user: trader, limit: 5 },
      { user: trader, limit: 5, include_order_type: true },
    ],
    recentFills: [{ limit: 5 }],
    allFills: [{ startTime: Number(start), limit: 5, includeOrderType: true }],
    userTwapSliceFills: [{ user: twap.address, twapId: Number(twap.twap_id) }],
    userTwapSliceFillsByTime: [{ user: twap.address, startTime: 0 }],
    twapHistory: [{ user: twapper.address }],
    userFees: [{ user: trader }],
    subAccounts: [{ user: trader }],
    delegations: [{ user: trader }],
    userRole: [{ user: trader }],
    exchangeStatus: [{}],
    vaultSummaries: [{}],
    historicalOrders: [{ user: trader }, { user: trader, startTime: 0, limit: 5 }],
    orderStatus: [
      { user: order.address, oid: Number(order.oid) },
      { user: order.address, oid: 1 },
    ],
    userFunding: [{ user: trader }],
    accountFunding: [{ user: trader, startTime: 0 }],
    userNonFundingLedgerUpdates: [{ user: ledger.address }],
    borrowLendUserState: [{ user: lender }],
  };
}, 180_000);
afterAll(async () => {
  await compat?.close();
});

/**
 * Whether an answer holds no rows: an empty list, an empty `result`, or an object whose lists are all empty
 * (borrowLendUserState's `tokenToState`): schemas checked against nothing but empty lists would prove little.
 */
function empty(body: unknown): boolean {
  if (Array.isArray(body)) return body.length === 0;
  if (typeof body !== 'object' || body === null) return false;
  if ('result' in body) return empty(body.result);
  const values = Object.values(body);
  const lists = values.filter(Array.isArray);
  // A record holding a non-empty record (dataCoverage's datasets beside its empty backfills) is not empty.
  const records = values.filter(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length,
  );
  return lists.length > 0 && records.length === 0 && lists.every((l) => l.length === 0);
}

describe('POST /info answers match the OpenAPI document', () => {
  it('asks every type, or says why not', () => {
    const asked = Object.keys(bodies).concat(Object.keys(SKIPPED)).sort();
    expect(asked).toEqual(Object.keys(INFO_TYPES).sort());
  });

  it('documents each type as a component the /info 200 response refers to', () => {
    const answer = doc.paths['/info'].post.responses['200'].content['application/json'].schema;
    const refs = answer.anyOf.map((s: { $ref: string }) => s.$ref);
    for (const type of Object.keys(INFO_TYPES)) {
      expect(refs).toContain(`#/components/schemas/${infoResponseName(type)}`);
      expect(doc.components.schemas[infoResponseName(type)].title).toBe(type);
    }
  });

  it.each(Object.keys(INFO_TYPES).filter((t) => !(t in SKIPPED)))('%s', async (type) => {
    // OpenAPI keywords (discriminator, the document's own fields) are not JSON Schema's: not strict.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'openapi.json', components: doc.components });
    const validate = ajv.getSchema(`openapi.json#/components/schemas/${infoResponseName(type)}`);
    expect(validate).toBeDefined();
    for (const body of bodies[type] ?? []) {
      const res = await fetch(`${compat.urls.compat}/info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ type, ...body }),
      });
      const answer = await res.json();
      expect({ body, status: res.status }).toEqual({ body, status: 200 });
      if (!(type in MAY_BE_EMPTY)) expect({ body, empty: empty(answer) }).toEqual({ body, empty: false });
      validate?.(answer);
      expect({ body, errors: validate?.errors ?? null }).toEqual({ body, errors: null });
    }
  });
});
