// The graph holds everything: every capability REST or MCP serves (each `/info` type, path route and MCP tool of
// every domain) names the GraphQL field that serves it, and that field exists in the domains' schemas. A new type,
// route or tool without one fails here, as does a field that is renamed away. The few deliberately REST-only
// (the node's types relayed as the node answers them) are listed with why.
import Fastify from 'fastify';
import { getNamedType, isObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ROUTE_AJV_OPTIONS } from '../compat-rest/app.ts';
import { capabilityInfo } from '../compat-rest/capability-info.ts';
import { capabilityRoutes } from '../compat-rest/capability-routes.ts';
import { ACCOUNTS_CAPABILITIES } from '../domains/accounts/capabilities.ts';
import { MARKETS_CAPABILITIES } from '../domains/markets/capabilities.ts';
import { DOMAIN_LIST } from '../domains.ts';
import { domainTools } from '../mcp/tools.ts';

/** Capability → the GraphQL field (`Type.field`) that serves it. */
const GRAPH_FIELD: Record<string, string> = {
  // markets /info
  'info meta': 'Market.info',
  'info spotMeta': 'Market.info',
  'info metaAndAssetCtxs': 'Market.assetCtx',
  'info spotMetaAndAssetCtxs': 'Market.spotAssetCtx',
  'info allMids': 'Query.allMids',
  'info l2Book': 'Market.book',
  'info l2Books': 'Market.book',
  'info availableDates': 'Query.availableDates',
  'info candleSnapshot': 'Market.candles',
  'info recentTrades': 'Market.trades',
  'info trades': 'Market.trades',
  'info fundingHistory': 'Market.fundingHistory',
  'info currentDepth': 'Market.depth',
  'info dataCoverage': 'Query.dataCoverage',
  'info allBorrowLendReserveStates': 'Token.reserve',
  'info borrowLendReserveHistory': 'Token.reserveHistory',
  'info marginTable': 'Market.info',
  'info perpDexs': 'Query.dexes',
  // accounts /info
  'info openOrders': 'User.openOrders',
  'info frontendOpenOrders': 'User.openOrders',
  'info spotClearinghouseState': 'User.spotBalances',
  'info clearinghouseState': 'User.account',
  'info userFills': 'User.fills',
  'info userFillsByTime': 'User.fills',
  'info fills': 'User.fills',
  'info recentFills': 'User.fills',
  'info allFills': 'Query.fills',
  'info userTwapSliceFills': 'User.twapSliceFills',
  'info userTwapSliceFillsByTime': 'User.twapSliceFills',
  'info twapHistory': 'User.twapHistory',
  'info historicalOrders': 'User.orders',
  'info orderStatus': 'User.orderStatus',
  'info userFunding': 'User.fundings',
  'info accountFunding': 'User.fundings',
  'info userNonFundingLedgerUpdates': 'User.ledgerUpdates',
  'info borrowLendUserState': 'User.borrowLendState',
  // path routes
  'GET /market/coins': 'Query.historyCoins',
  'GET /market/bbo/:coin': 'Market.history',
  'GET /market/spread/:coin': 'Market.history',
  'GET /market/depth/:coin': 'Market.history',
  'GET /market/slippage/:coin': 'Market.history',
  'GET /market/book/:coin': 'Market.history',
  'GET /market/liquidity-report/:coin': 'Market.liquidityReport',
  'GET /market/l4book/:coin': 'Market.l4Book',
  'GET /hip3/snapshots': 'Dex.snapshots',
  'GET /hip3/top-movers': 'Query.hip3TopMovers',
  'GET /fills': 'Query.fills',
  'GET /fills/recent': 'Query.fills',
  'GET /fills/user/:user_address': 'User.fills',
  'GET /funding/userFunding': 'User.fundings',
  'GET /users/:user/account': 'User.account',
  'GET /hip4/questions': 'Query.questions',
  'GET /hip4/markets': 'Query.outcomes',
  'GET /hip4/outcomes': 'Query.outcomes',
  'GET /hip4/fills': 'Query.hip4Fills',
  'GET /hip4/providers': 'Query.hip4Providers',
  'GET /hip4/deployers': 'Query.venues',
  'GET /hip4/analytics': 'Query.hip4Analytics',
  'GET /evm/transactions': 'Query.evmTransactions',
  'GET /evm/ledger/transfers': 'Query.ledgerTransfers',
  'GET /evm/user/:address/ledger-events': 'User.ledgerEvents',
  'GET /evm/hip3/backstop/transfers': 'Dex.backstopTransfers',
  'GET /evm/hip3/backstop/transfers-summary': 'Dex.backstopSummary',
  'GET /evm/hip3/backstop/health': 'Query.backstopHealth',
  'GET /evm/hip3/backstop/:dex/health': 'Dex.backstopHealth',
  'GET /evm/hip3/backstop/:dex/fills': 'Dex.absorbedFills',
  'GET /:chain/testnet/tokens/:address/holders': 'EvmToken.holders',
  'GET /users/leaderboard': 'Query.leaderboard',
  'GET /users/:user/performance': 'User.performance',
  'POST /users/batch/performance': 'Query.batchPerformance',
  'GET /users/:user/equity-history': 'User.equityHistory',
  'GET /users/:user/pnl-calendar': 'User.pnlCalendar',
  'GET /users/:user/top-trades': 'User.topTrades',
  'POST /builders/:builder/external-activity': 'Builder.externalActivity',
  // MCP tools
  'mcp markets_all_mids': 'Query.allMids',
  'mcp markets_market_info': 'Market.info',
  'mcp markets_perp_meta': 'Market.info',
  'mcp markets_spot_meta': 'Market.info',
  'mcp markets_perp_contexts': 'Market.assetCtx',
  'mcp markets_spot_contexts': 'Market.spotAssetCtx',
  'mcp markets_asset_context': 'Market.assetCtx',
  'mcp markets_l2_book': 'Market.book',
  'mcp markets_l2_books': 'Market.book',
  'mcp markets_l4_book': 'Market.l4Book',
  'mcp markets_best_bid_offer': 'Market.bbo',
  'mcp markets_current_depth': 'Market.depth',
  'mcp markets_candles': 'Market.candles',
  'mcp markets_trades': 'Market.trades',
  'mcp markets_funding_history': 'Market.fundingHistory',
  'mcp markets_reserve_states': 'Token.reserve',
  'mcp markets_reserve_history': 'Token.reserveHistory',
  'mcp markets_history_coins': 'Query.historyCoins',
  'mcp markets_history': 'Market.history',
  'mcp markets_liquidity_report': 'Market.liquidityReport',
  'mcp markets_available_dates': 'Query.availableDates',
  'mcp markets_data_coverage': 'Query.dataCoverage',
  'mcp markets_hip3_snapshots': 'Dex.snapshots',
  'mcp markets_hip3_top_movers': 'Query.hip3TopMovers',
  'mcp markets_perp_dexs': 'Query.dexes',
  'mcp markets_collect_trades': 'Subscription.trades',
  'mcp markets_collect_candles': 'Subscription.candle',
  'mcp markets_collect_bbo': 'Subscription.bbo',
  'mcp markets_collect_mids': 'Subscription.allMids',
  'mcp accounts_account_state': 'User.account',
  'mcp accounts_open_orders': 'User.openOrders',
  'mcp accounts_spot_balances': 'User.spotBalances',
  'mcp accounts_clearinghouse_state': 'User.account',
  'mcp accounts_user_fills': 'User.fills',
  'mcp accounts_fills': 'Query.fills',
  'mcp accounts_twap_slice_fills': 'User.twapSliceFills',
  'mcp accounts_twap_history': 'User.twapHistory',
  'mcp accounts_historical_orders': 'User.orders',
  'mcp accounts_order_status': 'User.orderStatus',
  'mcp accounts_funding_payments': 'User.fundings',
  'mcp accounts_ledger_updates': 'User.ledgerUpdates',
  'mcp accounts_liquidations': 'User.liquidations',
  'mcp accounts_borrow_lend_state': 'User.borrowLendState',
  'mcp accounts_collect_user_events': 'Subscription.userEvents',
  'mcp accounts_collect_liquidations': 'Subscription.liquidations',
  'mcp hip4_questions': 'Query.questions',
  'mcp hip4_markets': 'Query.outcomes',
  'mcp hip4_fills': 'Query.hip4Fills',
  'mcp hip4_providers': 'Query.hip4Providers',
  'mcp hip4_deployers': 'Query.venues',
  'mcp hip4_analytics': 'Query.hip4Analytics',
  'mcp evm_transactions': 'Query.evmTransactions',
  'mcp evm_token_holders': 'EvmToken.holders',
  'mcp evm_ledger_transfers': 'Query.ledgerTransfers',
  'mcp evm_user_ledger_events': 'User.ledgerEvents',
  'mcp evm_backstop_transfers': 'Dex.backstopTransfers',
  'mcp evm_backstop_summary': 'Dex.backstopSummary',
  'mcp evm_backstop_health': 'Query.backstopHealth',
  'mcp evm_backstop_fills': 'Dex.absorbedFills',
  'mcp analytics_leaderboard': 'Query.leaderboard',
  'mcp analytics_performance': 'User.performance',
  'mcp analytics_batch_performance': 'Query.batchPerformance',
  'mcp analytics_pnl_calendar': 'User.pnlCalendar',
  'mcp analytics_equity_history': 'User.equityHistory',
  'mcp analytics_top_trades': 'User.topTrades',
  'mcp analytics_builder_external_activity': 'Builder.externalActivity',
};

/**
 * Deliberately REST- and MCP-only: the node's own types, relayed as the node answers them (their shapes are the
 * node's, which this service neither indexes nor types), and the MCP tools over them.
 */
const RELAYED_MCP_TOOLS = [
  'accounts_user_fees',
  'accounts_sub_accounts',
  'accounts_delegations',
  'markets_vault_summaries',
  'markets_max_market_order_notionals',
];
const RELAYED_INFO_TYPES = [
  // The types relayed to the node, but those a field serves (meta and spotMeta: Market.info; openOrders:
  // User.openOrders...).
  ...[...MARKETS_CAPABILITIES.list, ...ACCOUNTS_CAPABILITIES.list].flatMap((c) =>
    c.info?.relay !== undefined && !(`info ${c.info.type}` in GRAPH_FIELD) ? [c.info.type as string] : [],
  ),
];

/**
 * The links a front end follows from one entity to another (`Type.field` → the type it returns), each served by
 * its subgraph and followed into the others by the router (test/graph-links.test.ts and cross-interface test them
 * over data).
 */
const ENTITY_LINKS: Record<string, string> = {
  'Trade.users': 'User',
  'Fill.user': 'User',
  'Fill.builder': 'Builder',
  'Liquidation.liquidatedAccount': 'User',
  'Liquidation.liquidatorAccount': 'User',
  'Liquidation.routedBy': 'Builder',
  'Builder.fills': 'FillConnection',
  'Builder.revenue': 'BuilderRevenue',
  'WalletActivity.user': 'User',
  'Token.evmToken': 'EvmToken',
  'EvmToken.spotToken': 'Token',
  'TokenHolder.account': 'User',
  'LedgerTransfer.userAccount': 'User',
  'LedgerTransfer.destinationAccount': 'User',
  'Transaction.sender': 'User',
  'Transaction.toAccount': 'User',
  'Market.dex': 'Dex',
  'Market.outcome': 'Outcome',
  'Venue.deployer': 'Deployer',
  'Deployer.account': 'User',
};

async function capabilities(): Promise<string[]> {
  const out: string[] = [];
  for (const d of DOMAIN_LIST) {
    const declared = d.capabilities ? capabilityInfo(d.name, d.capabilities) : {};
    out.push(...Object.keys(declared).map((t) => `info ${t}`));
  }
  out.push(...domainTools().map((t) => `mcp ${t.name}`));
  // The path routes as the domains register them (no handler runs: the services are not needed).
  const app = Fastify({ ajv: ROUTE_AJV_OPTIONS });
  app.addHook('onRoute', (r) => {
    for (const method of [r.method].flat()) if (method !== 'HEAD') out.push(`${method} ${r.url}`);
  });
  for (const d of DOMAIN_LIST) {
    const routes = d.capabilities ? [capabilityRoutes(d.name, d.capabilities)] : [];
    for (const r of routes) await app.register(r.plugin, { prefix: r.prefix, services: {} as never });
  }
  await app.ready();
  await app.close();
  return out;
}

/** Every `Type.field` of the domains' schemas, and the named type it returns. */
function graphFieldTypes(): Map<string, string> {
  const fields = new Map<string, string>();
  for (const d of DOMAIN_LIST) {
    for (const type of Object.values(d.schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const [name, field] of Object.entries(type.getFields())) {
        fields.set(`${type.name}.${name}`, getNamedType(field.type).name);
      }
    }
  }
  return fields;
}

describe('the graph holds every capability', () => {
  it('every /info type, path route and MCP tool names its GraphQL field, and the field exists', async () => {
    const relayed = new Set([
      ...RELAYED_INFO_TYPES.map((t) => `info ${t}`),
      ...RELAYED_MCP_TOOLS.map((t) => `mcp ${t}`),
    ]);
    const all = await capabilities();
    expect(all.length).toBeGreaterThan(150);
    const unmapped = all.filter((c) => !(c in GRAPH_FIELD) && !relayed.has(c));
    expect(unmapped, 'capabilities without a GraphQL field (map them in GRAPH_FIELD)').toEqual([]);
    const fields = graphFieldTypes();
    const missing = Object.entries(GRAPH_FIELD).filter(([, field]) => !fields.has(field));
    expect(missing, 'fields named here that no subgraph has').toEqual([]);
    // Nothing listed twice over: a mapped capability is not also called REST-only, and no entry is stale.
    expect(Object.keys(GRAPH_FIELD).filter((c) => relayed.has(c))).toEqual([]);
    expect(Object.keys(GRAPH_FIELD).filter((c) => !all.includes(c))).toEqual([]);
  });

  it('every entity link exists and returns its entity', () => {
    const fields = graphFieldTypes();
    const wrong = Object.entries(ENTITY_LINKS)
      .filter(([field, type]) => fields.get(field) !== type)
      .map(([field, type]) => `${field}: ${type}, found ${fields.get(field) ?? 'no such field'}`);
    expect(wrong).toEqual([]);
  });
});
