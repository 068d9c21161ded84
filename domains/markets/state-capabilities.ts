// The markets domain's capabilities of the market's present: mids, metas, contexts, books, HIP-3 snapshots, and the
// node's own types the service relays (kit/proxy.ts): each /info type the exchange answers keeps its shape, so that
// its SDKs work unchanged.
import type { TProperties } from '@sinclair/typebox';
import { dataEnvelopeOf, naiveTime, type RouteAnswer } from '../../kit/answers.ts';
import type { Capability, McpDoor } from '../../kit/capability.ts';
import { wholeCapability } from '../../kit/capability.ts';
import { resultEnvelope } from '../../kit/envelopes.ts';
import { sharedBytes } from '../../kit/info.ts';
import type { Input } from '../../kit/input.ts';
import { METADATA_TTL_MS, nodeAnswer } from '../../kit/proxy.ts';
import type { JsonSchema } from '../../kit/request-schema.ts';
import * as R from '../../kit/response-schema.ts';
import { naiveIso } from '../../platform/naive-iso.ts';
import { DexRef, SnapshotRef } from './schema/hip3.ts';
import { L4BookRef } from './schema/l4-book.ts';
import {
  AssetCtxRef,
  BboRef,
  BookRef,
  bboOf,
  DepthBandRef,
  MarketInfoRef,
  MarketRef,
  MidRef,
  midsList,
  SpotAssetCtxRef,
} from './schema/market.ts';
import type { L2BookAnswer } from './service/book/coin-book.ts';
import { isSpotCoin } from './service/coins.ts';
import { dexOf, type Hip3Snapshot } from './service/hip3.ts';
import type { MarketsService } from './service/index.ts';
import {
  ALL_MIDS,
  COIN,
  DEX,
  HIP3_SNAPSHOTS,
  HIP3_TOP_MOVERS,
  L2_BOOK,
  L2_BOOK_DIFF,
  L2_BOOKS,
  L4_BOOK,
  LIQUIDITY_REPORT,
  MARGIN_TABLE,
  NAMED_DEX,
  NO_INPUT,
  OUTCOME,
  TOKEN_ID,
  TOKEN_INDEX,
  VAULT,
  VAULT_LEADER,
} from './service/inputs.ts';
import { HIP3_TOP_MOVERS_DEFAULT, MAX_HIP3_TOP_MOVERS, MAX_L2_BOOKS } from './service/limits.ts';

/**
 * A type the node answers and the service does not index: /info relays the body as sent (cached `ttlMs` when its
 * data allows) and sends the node's answer as it is, `response` its shape; a tool answers the node's JSON under the
 * type's name.
 */
const nodeType = <P extends TProperties>(
  type: string,
  input: Input<P>,
  ttlMs: number,
  response: JsonSchema,
  mcp?: Omit<McpDoor, 'key'>,
) =>
  wholeCapability({
    name: type,
    input,
    answer: (markets: MarketsService, q) => markets.nodeAnswer({ type, ...q }, ttlMs),
    info: { type, relay: ttlMs, response },
    ...(mcp ? { mcp: { ...mcp, key: type } } : {}),
  });

/** A type of the node without fields, its answer described. */
const global = (type: string, description: string, ttlMs = 0) =>
  nodeType(type, NO_INPUT, ttlMs, nodeAnswer(description));

/** order_book_server's L4Order: the node's order record, its user inside. */
const l4Order = R.record({
  user: R.address,
  coin: R.str,
  side: R.side,
  limitPx: R.decimal,
  sz: R.decimal,
  oid: R.int,
  timestamp: R.ms,
  triggerCondition: R.str,
  isTrigger: R.bool,
  triggerPx: R.decimal,
  isPositionTpsl: R.bool,
  reduceOnly: R.bool,
  orderType: R.str,
  tif: R.orNull(R.str),
  cloid: R.orNull(R.str),
});
const l4Book = R.record({ coin: R.str, time: R.ms, height: R.int, levels: R.tuple(R.list(l4Order), R.list(l4Order)) });

const COMMA = Buffer.from(',');

/**
 * Several books in one /info answer: `{result: {coin: l2Book answer | null, ...}, cursor: null}` in the order asked,
 * each book the bytes its own l2Book answer is sent as.
 */
function booksJson(books: Map<string, L2BookAnswer | null>): Buffer {
  const parts = [...books].map(([coin, book]) =>
    Buffer.concat([Buffer.from(`${JSON.stringify(coin)}:`), book ? sharedBytes(book) : Buffer.from('null')]),
  );
  const joined = parts.flatMap((p, i) => (i ? [COMMA, p] : [p]));
  return Buffer.concat([Buffer.from('{"result":{'), ...joined, Buffer.from('},"cursor":null}')]);
}

const nullableDecimal = R.orNull(R.decimal);

/** A coin's liquidity over a window (the market-history archive's averages); times naive UTC ISO. */
const averages = R.mapOf(R.record({}));
const liquidityReport = R.record({
  coin: R.str,
  start_time: naiveTime,
  end_time: naiveTime,
  samples: R.int,
  spread_bps: R.record({ avg: nullableDecimal, median: nullableDecimal, max: nullableDecimal }),
  depth_usd: averages,
  slippage_bps: averages,
});

/** The HIP-3 routes' rows (reference/service-details.md), in the data envelope. */
const snapshots: RouteAnswer = {
  body: dataEnvelopeOf(
    R.list(
      R.record({
        dex_id: R.str,
        coin: R.str,
        current_mark_price: nullableDecimal,
        current_oracle_price: nullableDecimal,
        current_funding_rate: nullableDecimal,
        open_interest: nullableDecimal,
        volume_24h: R.decimal,
        fees_24h: R.decimal,
        trades_24h: R.int,
        total_volume_cumulative: R.decimal,
        total_fees_cumulative: R.decimal,
        is_halted: R.bool,
        last_update: R.orNull(naiveTime),
      }),
    ),
  ),
};

/** A HIP-3 snapshot as a path route answers it: `last_update` as naive UTC ISO text, as in every path-endpoint record. */
const snapshotRows = (rows: Hip3Snapshot[]) => ({
  data: rows.map((s) => ({ ...s, last_update: s.last_update === null ? null : naiveIso(s.last_update) })),
});

/** A Dex's fields: the dex is the parent's. */
const fromDex = { dexId: (d: { name: string }) => d.name };

/** A Market's fields: the coin is the parent's. */
const fromMarket = { coin: (m: { coin: string }) => m.coin };

/** The markets of the node's side of the exchange, answered as it answers them (hyperliquid-wire.md §3). */
const NODE_TYPES: readonly Capability<MarketsService>[] = [
  nodeType('perpDexs', NO_INPUT, METADATA_TTL_MS, R.list({ anyOf: [{ type: 'null' }, R.record({ name: R.str })] }), {
    name: 'markets_perp_dexs',
    title: 'Perp dexes',
    description: 'The perp dexes (the main one and every HIP-3 dex) the node knows.',
  }),
  /** `null` for an id no market uses. */
  nodeType(
    'marginTable',
    MARGIN_TABLE,
    METADATA_TTL_MS,
    R.orNull(
      R.record({ description: R.str, marginTiers: R.list(R.record({ lowerBound: R.decimal, maxLeverage: R.int })) }),
    ),
  ),
  nodeType('maxMarketOrderNtls', NO_INPUT, METADATA_TTL_MS, R.list(R.tuple(R.int, R.decimal)), {
    name: 'markets_max_market_order_notionals',
    title: 'Max market order notionals',
    description: 'The largest notional a single market order may have, per asset, as the node reports it.',
  }),
  nodeType('leadingVaults', VAULT_LEADER, 10_000, R.list(R.record({ address: R.address, name: R.str }))),
  // The rest of the node's documented types (the @nktkas/hyperliquid SDK's list) of this side of the exchange:
  // listings, deploys, validators, vaults. Their answers are the node's, each described and left to it.
  global('allPerpMetas', "every perp dex's `meta`, in perpDexs order", METADATA_TTL_MS),
  nodeType('perpsAtOpenInterestCap', DEX, 0, nodeAnswer('the coins at their open-interest cap (string[])')),
  nodeType('perpDexLimits', NAMED_DEX, 0, nodeAnswer("a HIP-3 dex's open-interest and transfer caps, or null")),
  nodeType('perpDexStatus', NAMED_DEX, 0, nodeAnswer("a HIP-3 dex's `{totalNetDeposit}`")),
  nodeType('perpAnnotation', COIN, METADATA_TTL_MS, nodeAnswer("a perp's annotation")),
  global('perpCategories', "the perps' categories", METADATA_TTL_MS),
  global('perpConciseAnnotations', "the perps' concise annotations", METADATA_TTL_MS),
  global('predictedFundings', 'the predicted funding rates per coin and venue'),
  global('exchangeStatus', '`{time, specialStatuses}`'),
  global('liquidatable', 'the accounts now liquidatable'),
  global('perpDeployAuctionStatus', 'the perp deploy gas auction'),
  global('spotPairDeployAuctionStatus', 'the spot pair deploy gas auction'),
  global('gossipPriorityAuctionStatus', 'the gossip priority auction'),
  global('gossipRootIps', "the gossip network's root IPs"),
  nodeType(
    'tokenDetails',
    TOKEN_ID,
    METADATA_TTL_MS,
    nodeAnswer("a spot token's details (supplies, price, genesis, deployer)"),
  ),
  nodeType('borrowLendReserveState', TOKEN_INDEX, 0, nodeAnswer("a token's borrow/lend reserve now")),
  global('usdcRouting', 'the USDC routing state'),
  global('outcomeMeta', 'the HIP-4 outcome markets', METADATA_TTL_MS),
  global('outcomeTemplates', 'the HIP-4 outcome templates', METADATA_TTL_MS),
  nodeType('settledOutcome', OUTCOME, 0, nodeAnswer('a settled HIP-4 outcome')),
  global('validatorSummaries', 'the validators (stake, commission, uptime)'),
  global('validatorL1Votes', "the validators' pending L1 votes"),
  nodeType('vaultSummaries', NO_INPUT, 0, nodeAnswer('the vaults (name, address, leader, TVL, closed, relationship)'), {
    name: 'markets_vault_summaries',
    title: 'Vaults',
    description:
      'The vaults the node lists (name, address, leader, TVL, closed or not, parent/child relationship, creation time).',
  }),
  nodeType(
    'vaultDetails',
    VAULT,
    0,
    nodeAnswer("a vault's details (portfolio, APR, followers; with `user`, their state in it)"),
  ),
];

export const STATE_CAPABILITIES: readonly Capability<MarketsService>[] = [
  wholeCapability({
    name: 'meta',
    input: DEX,
    answer: (markets, { dex }) => markets.meta(dex),
    info: { type: 'meta', relay: METADATA_TTL_MS, response: R.perpMeta },
    mcp: {
      name: 'markets_perp_meta',
      title: 'Perp universe',
      description:
        'The perp universe of the main dex or of a HIP-3 dex: every asset with its size decimals, max leverage and ' +
        'margin table (the exchange meta answer). An unknown dex is an error.',
      key: 'meta',
      summary: (r) => `${(r.meta as { universe: unknown[] }).universe.length} perp assets`,
    },
  }),
  wholeCapability({
    name: 'spotMeta',
    input: NO_INPUT,
    answer: (markets) => markets.spotMeta(),
    info: { type: 'spotMeta', relay: METADATA_TTL_MS, response: R.spotMeta },
    mcp: {
      name: 'markets_spot_meta',
      title: 'Spot universe',
      description: 'Every spot pair and token (names, indexes, decimals): the exchange spotMeta answer.',
      key: 'spotMeta',
    },
  }),
  ...NODE_TYPES,
  wholeCapability({
    name: 'metaAndAssetCtxs',
    input: DEX,
    answer: (markets, { dex }) => markets.metaAndAssetCtxs(dex),
    info: { type: 'metaAndAssetCtxs', response: R.tuple(R.perpMeta, R.list(R.perpAssetCtx)) },
    mcp: {
      name: 'markets_perp_contexts',
      title: 'Perp asset contexts',
      description:
        'Live context of every perp of a dex: funding rate, open interest, mark, oracle and mid prices, 24 h ' +
        'notional and base volume, previous-day price, premium. For one coin prefer markets_asset_context.',
      key: 'contexts',
      of: ([meta, contexts]) =>
        meta.universe.map((u: { name: string }, i: number) => ({ coin: u.name, ...contexts[i] })),
    },
  }),
  wholeCapability({
    name: 'spotMetaAndAssetCtxs',
    input: NO_INPUT,
    answer: (markets) => markets.spotMetaAndAssetCtxs(),
    info: { type: 'spotMetaAndAssetCtxs', response: R.tuple(R.spotMeta, R.list(R.spotAssetCtx)) },
    mcp: {
      name: 'markets_spot_contexts',
      title: 'Spot asset contexts',
      description: 'Live context of every spot pair: mark and mid prices, 24 h volumes, supply, previous-day price.',
      key: 'contexts',
      of: ([, contexts]) => contexts,
    },
  }),
  wholeCapability({
    name: 'allMids',
    input: ALL_MIDS,
    // Without dex, the service hands out one map until the next change: its JSON is encoded once.
    answer: (markets, q) => markets.dexMids(q),
    shared: true,
    info: { type: 'allMids', omit: ['coins'], response: R.mapOf(R.decimal) },
    mcp: {
      name: 'markets_all_mids',
      title: 'Mid prices of all coins',
      description:
        'Current mid price of every coin (perps and spot pairs) from the live order books, falling back to the last ' +
        'trade price. Use it for "what is the price of X" or to list tradable coins. With `dex`, the coins of that ' +
        'HIP-3 dex; with `coins`, only those.',
      key: 'mids',
      summary: (r) => `${Object.keys(r.mids as object).length} mid prices`,
    },
    graphql: {
      type: [MidRef],
      description:
        'Mid prices by the exchange\'s rule: without `dex` (or "") the main perp dex\'s coins and spot; with a HIP-3 ' +
        "dex, that dex's coins",
      answer: 'allMids',
      omit: ['coins'],
      listSize: { assumedSize: 200 },
      of: midsList,
    },
  }),
  wholeCapability({
    name: 'l2Book',
    input: L2_BOOK,
    answer: async (markets, q) => markets.l2Book(q),
    orNull: true,
    // The service hands out one aggregated book until it changes: its JSON is encoded once.
    shared: true,
    info: { type: 'l2Book', response: R.orNull(R.l2Book) },
    mcp: {
      name: 'markets_l2_book',
      title: 'Order book of a coin',
      description:
        'The live L2 order book of a coin: up to 20 price levels a side (px, sz, number of orders), optionally ' +
        'aggregated to fewer significant figures. Null when the coin has no book.',
      key: 'book',
    },
  }),
  wholeCapability({
    name: 'l2Books',
    input: L2_BOOKS,
    answer: async (markets, q) => markets.l2Books(q),
    info: { type: 'l2Books', bytes: booksJson, response: R.resultOf(R.mapOf(R.orNull(R.l2Book))) },
    mcp: {
      name: 'markets_l2_books',
      title: 'Order books of several coins',
      description: `The live L2 books of up to ${MAX_L2_BOOKS} coins at once (null for a coin without a book).`,
      key: 'books',
      of: Object.fromEntries,
    },
  }),
  /**
   * The HIP-3 dex a coin is listed on: its own prefix (`<dex>:<COIN>`), no call. The first of Market's fields here, as
   * it printed when it was written by hand.
   */
  wholeCapability({
    name: 'dex',
    input: COIN,
    answer: async (_markets, { coin }) => {
      const name = dexOf(coin);
      return name ? { name } : null;
    },
    orNull: true,
    graphql: {
      type: DexRef,
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'dex',
          description: 'The HIP-3 dex a `<dex>:<COIN>` market is listed on (null for the native perp dex and spot)',
          given: fromMarket,
        },
      ],
    },
  }),
  /** A Market's book, as deep as asked (its levels a side: the live l2Book subscription's). */
  wholeCapability({
    name: 'book',
    input: L2_BOOK_DIFF,
    answer: async (markets, q) => markets.l2Book(q),
    orNull: true,
    graphql: {
      type: BookRef,
      description: '',
      fields: [{ on: MarketRef, name: 'book', given: fromMarket }],
    },
  }),
  wholeCapability({
    name: 'l4Book',
    input: L4_BOOK,
    answer: async (markets, q) => markets.l4Book(q),
    orNull: true,
    rest: {
      paths: ['/market/l4book/:coin'],
      params: { coin: 'coin' },
      data: true,
      answer: { body: dataEnvelopeOf(R.orNull(l4Book)) },
    },
    mcp: {
      name: 'markets_l4_book',
      title: 'Order-level (L4) book of a coin',
      description:
        'Every resting order of a coin, best price first and in time priority within a price: user, oid, cloid, ' +
        'side, limit price, size, time, tif, trigger fields and reduce-only, as the node records them, with the ' +
        'block height the book stands at. Null when the coin has no book. For price levels use markets_l2_book.',
      key: 'book',
    },
    graphql: {
      type: L4BookRef,
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'l4Book',
          description: 'Every resting order of the coin (the L4 book) at the height it stands at; null without a book',
          given: fromMarket,
        },
      ],
    },
  }),
  wholeCapability({
    name: 'bbo',
    input: COIN,
    answer: async (markets, { coin }) => markets.books.bbo(coin),
    orNull: true,
    mcp: {
      name: 'markets_best_bid_offer',
      title: 'Best bid and offer',
      description:
        "A coin's best bid and best ask (price, size, orders) from the live book; null without a book. For more " +
        'levels use markets_l2_book; for the spread and depth around the mid, markets_current_depth.',
      key: 'bbo',
    },
    graphql: {
      type: BboRef,
      description: '',
      fields: [{ on: MarketRef, name: 'bbo', nullable: true, of: bboOf, given: fromMarket }],
    },
  }),
  wholeCapability({
    name: 'currentDepth',
    input: COIN,
    answer: async (markets, { coin }) => markets.books.depth(coin),
    orNull: true,
    info: {
      type: 'currentDepth',
      of: resultEnvelope,
      /** USD depth within each band of basis points around the mid; `null` without a two-sided book. */
      response: R.resultOf(
        R.orNull(
          R.record({
            coin: R.str,
            time: R.ms,
            midPx: R.decimal,
            depth: R.mapOf(R.record({ bidDepthUsd: R.decimal, askDepthUsd: R.decimal })),
          }),
        ),
      ),
    },
    mcp: {
      name: 'markets_current_depth',
      title: 'Book depth summary',
      description:
        "A coin's live book depth: spread and the resting size and notional within bands around the mid. Use it to " +
        'judge liquidity now; for past liquidity use markets_liquidity_report.',
      key: 'depth',
    },
    graphql: {
      type: [DepthBandRef],
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'depth',
          listSize: { assumedSize: 6 },
          of: (d) => (d ? Object.entries(d.depth).map(([bps, v]) => ({ bps: Number(bps), ...(v as object) })) : []),
          given: fromMarket,
        },
      ],
    },
  }),
  wholeCapability({
    name: 'marketInfo',
    input: COIN,
    answer: (markets, { coin }) => markets.marketInfo(coin),
    orNull: true,
    mcp: {
      name: 'markets_market_info',
      title: 'Market metadata of a coin',
      description:
        'What kind of market a coin is (perp, spot or HIP-4 outcome) and its trading parameters: size decimals, max ' +
        'leverage, margin table, isolated-only, delisted; for spot the base and quote tokens. Null when unknown. For ' +
        'every asset at once use markets_perp_meta or markets_spot_meta.',
      key: 'market',
    },
    graphql: {
      type: MarketInfoRef,
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'info',
          description: "The node's metadata of the coin; null when the node does not list it",
          given: fromMarket,
        },
      ],
    },
  }),
  wholeCapability({
    name: 'assetContext',
    input: COIN,
    answer: async (markets, { coin }) => ({
      coin,
      ctx: isSpotCoin(coin) ? markets.spotAssetCtx(coin) : markets.perpAssetCtx(coin),
    }),
    mcp: {
      name: 'markets_asset_context',
      title: 'Asset context of one coin',
      description:
        "One coin's live context (perp: funding, open interest, mark/oracle/mid price, 24 h volume, premium; spot: " +
        'prices, volumes, supply).',
    },
  }),
  // The market as the graph reaches it: by its coin, every market with a price, its mid and its contexts.
  wholeCapability({
    name: 'market',
    input: COIN,
    answer: async (markets, { coin }) => (markets.mid(coin) !== null || markets.hasCtx(coin) ? { coin } : null),
    orNull: true,
    graphql: {
      type: MarketRef,
      description: 'A market by coin name ("BTC", "PURR/USDC", "@1", "xyz:XYZ100", "#2901"); null when unknown',
      answer: 'market',
    },
  }),
  wholeCapability({
    name: 'markets',
    input: NO_INPUT,
    answer: async (markets) => Object.keys(markets.allMids()).map((coin) => ({ coin })),
    graphql: {
      type: [MarketRef],
      description: 'Every market with a price',
      answer: 'markets',
      listSize: { assumedSize: 200 },
    },
  }),
  wholeCapability({
    name: 'mid',
    input: COIN,
    answer: async (markets, { coin }) => markets.mid(coin),
    orNull: true,
    graphql: {
      type: 'Decimal',
      description: '',
      fields: [{ on: MarketRef, name: 'mid', given: fromMarket }],
    },
  }),
  /** A perp's context, or null for a spot pair (its context is spotAssetCtx) and a coin without one. */
  wholeCapability({
    name: 'perpAssetCtx',
    input: COIN,
    answer: async (markets, { coin }) =>
      !isSpotCoin(coin) && markets.hasCtx(coin) ? { coin, ...markets.perpAssetCtx(coin) } : null,
    orNull: true,
    graphql: {
      type: AssetCtxRef,
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'assetCtx',
          description: "A perp's context; null for a spot pair (see spotAssetCtx)",
          given: fromMarket,
        },
      ],
    },
  }),
  wholeCapability({
    name: 'spotAssetCtx',
    input: COIN,
    // As /ws activeSpotAssetCtx: a pair that trades has a context even before the node's first ctx row for it.
    answer: async (markets, { coin }) =>
      isSpotCoin(coin) && (markets.hasCtx(coin) || markets.mid(coin) !== null) ? markets.spotAssetCtx(coin) : null,
    orNull: true,
    graphql: {
      type: SpotAssetCtxRef,
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'spotAssetCtx',
          description: "A spot pair's context; null for a perp (see assetCtx)",
          given: fromMarket,
        },
      ],
    },
  }),
  wholeCapability({
    name: 'liquidityReport',
    input: LIQUIDITY_REPORT,
    answer: (markets, q) => markets.liquidityReport(q),
    rest: {
      paths: ['/market/liquidity-report/:coin'],
      params: { coin: 'coin' },
      data: (report) => ({
        data: { ...report, start_time: naiveIso(report.start_time), end_time: naiveIso(report.end_time) },
      }),
      answer: { body: dataEnvelopeOf(liquidityReport) },
    },
    mcp: {
      name: 'markets_liquidity_report',
      title: 'Liquidity report',
      description:
        "A coin's liquidity over a window (default the last day): average spread, depth per band around the mid and " +
        'slippage per notional size, from the market-history archive.',
      key: 'report',
    },
    graphql: {
      type: 'JSON',
      description: '',
      fields: [
        {
          on: MarketRef,
          name: 'liquidityReport',
          description:
            'Averages over a window (default the day before endTime): spread, depth per band, slippage per notional, ' +
            'as `/market/liquidity-report/{coin}` gives them',
          given: fromMarket,
        },
      ],
    },
  }),
  wholeCapability({
    name: 'hip3Snapshots',
    input: HIP3_SNAPSHOTS,
    answer: (markets, q) => markets.hip3Snapshots(q),
    rest: { paths: ['/hip3/snapshots'], data: snapshotRows, answer: snapshots },
    mcp: {
      name: 'markets_hip3_snapshots',
      title: 'HIP-3 market snapshots',
      description:
        'Latest snapshot of every HIP-3 dex coin (mark and oracle price, funding, open interest, 24 h volume, fees and ' +
        'trades, cumulative totals, halted), optionally one dex or one coin.',
      key: 'snapshots',
    },
    graphql: {
      type: [SnapshotRef],
      description: '',
      fields: [{ on: DexRef, name: 'snapshots', omit: ['coin'], listSize: { assumedSize: 20 }, given: fromDex }],
    },
  }),
  /** The HIP-3 dexes with a snapshot. */
  wholeCapability({
    name: 'dexes',
    input: NO_INPUT,
    answer: async (markets) => (await markets.hip3Dexes()).map((name) => ({ name })),
    graphql: { type: [DexRef], description: '', answer: 'dexes', listSize: { assumedSize: 5 } },
  }),
  wholeCapability({
    name: 'hip3TopMovers',
    input: HIP3_TOP_MOVERS,
    answer: (markets, q) => markets.hip3TopMovers(q),
    rest: { paths: ['/hip3/top-movers'], data: snapshotRows, answer: snapshots },
    mcp: {
      name: 'markets_hip3_top_movers',
      title: 'HIP-3 top movers',
      description: `HIP-3 coins with the largest 24 h price move, largest first (1 to ${MAX_HIP3_TOP_MOVERS}, default ${HIP3_TOP_MOVERS_DEFAULT}).`,
      key: 'movers',
    },
    graphql: {
      type: [SnapshotRef],
      description: 'HIP-3 coins ranked by the size of their 24 h price move',
      answer: 'hip3TopMovers',
      listSize: { slicingArguments: ['limit'], requireOneSlicingArgument: false },
    },
  }),
];
