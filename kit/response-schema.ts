// The JSON Schemas of /info answers, for the OpenAPI document only (never a serializer: the answers are written by
// the services and sent as they are). The exchange's shapes follow hyperliquid-wire.md §2-3; each /info entry names
// its answer's schema beside its handler (`response`), built from the shapes here. Objects stay open: the
// exchange adds fields, and a relayed answer carries whatever the node sends.
import type { JsonSchema } from './request-schema.ts';

/** Required fields: every key of `properties` but those listed in `optional`. */
export const record = (properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((k) => !optional.includes(k)),
});
export const list = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
/** A JSON array of fixed length, one schema per position (`[id, value]` pairs, `[meta, ctxs]`). */
export const tuple = (...items: JsonSchema[]): JsonSchema => ({
  type: 'array',
  prefixItems: items,
  minItems: items.length,
  maxItems: items.length,
});
export const orNull = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
/** An object of any keys whose values all match `values` (allMids' coins, availableDates' datasets). */
export const mapOf = (values: JsonSchema): JsonSchema => ({ type: 'object', additionalProperties: values });

export const str: JsonSchema = { type: 'string' };
export const int: JsonSchema = { type: 'integer' };
export const bool: JsonSchema = { type: 'boolean' };
export const ms: JsonSchema = { type: 'integer', minimum: 0, description: 'epoch milliseconds' };
/** The exchange writes amounts and prices as decimal text (`"90127.5"`, `"-0.0001"`). */
export const decimal: JsonSchema = { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]+)?$' };
export const address: JsonSchema = { type: 'string', pattern: '^0x[0-9a-f]{40}$' };
export const txHash: JsonSchema = { type: 'string', pattern: '^0x[0-9a-f]{64}$' };
export const cloid: JsonSchema = { type: 'string', pattern: '^0x[0-9a-f]{32}$' };
export const side: JsonSchema = { type: 'string', enum: ['A', 'B'] };

/** The service's own types: `{result, cursor: null}` (envelopes.ts resultEnvelope). */
export const resultOf = (result: JsonSchema): JsonSchema => record({ result, cursor: { type: 'null' } });

// ---- the exchange's shapes (hyperliquid-wire.md §2) ----

// §2.1 Fill: a stored fill's fields describe it (domains/accounts/service/fill-fields.ts wireFillSchema).

/** §2.2 OpenOrder (openOrders). */
const openOrderFields = {
  coin: str,
  side,
  limitPx: decimal,
  sz: decimal,
  oid: int,
  timestamp: ms,
  origSz: decimal,
  cloid,
  reduceOnly: bool,
};
export const openOrder = record(openOrderFields, ['cloid', 'reduceOnly']);

/** §2.2 FrontendOpenOrder (frontendOpenOrders, historicalOrders, orderStatus). */
export const frontendOrder = record({
  ...openOrderFields,
  cloid: orNull(cloid),
  triggerCondition: str,
  isTrigger: bool,
  triggerPx: decimal,
  children: list({ type: 'object' }),
  isPositionTpsl: bool,
  reduceOnly: bool,
  orderType: str,
  tif: { type: ['string', 'null'] },
});

/** An order with its status (historicalOrders' items, orderStatus' `order`). */
export const orderWithStatus = record({ order: frontendOrder, status: str, statusTimestamp: ms });

/** §2.3 L2 book (l2Book, l2Books' values). */
const level = record({ px: decimal, sz: decimal, n: int });
export const l2Book = record({ coin: str, time: ms, levels: tuple(list(level), list(level)) });

/** §2.3 Trade (recentTrades, trades; market-data.ts WireTrade). */
export const wireTrade = record({
  coin: str,
  side,
  px: decimal,
  sz: decimal,
  time: ms,
  hash: txHash,
  tid: int,
  users: tuple({ type: 'string' }, { type: 'string' }),
});

/** §2.3 Candle (candleSnapshot; market-data.ts WireCandle). */
export const wireCandle = record({
  t: ms,
  T: ms,
  s: str,
  i: str,
  o: decimal,
  c: decimal,
  h: decimal,
  l: decimal,
  v: decimal,
  n: int,
});

/** §3.1 meta. */
export const perpMeta = record({
  universe: list(record({ name: str, szDecimals: int, maxLeverage: int, marginTableId: int }, ['marginTableId'])),
  marginTables: list(tuple(int, record({ description: str, marginTiers: list({ type: 'object' }) }))),
});
/** §3.1 spotMeta. */
export const spotMeta = record({
  universe: list(record({ tokens: tuple(int, int), name: str, index: int, isCanonical: bool })),
  tokens: list(record({ name: str, szDecimals: int, weiDecimals: int, index: int, tokenId: str, isCanonical: bool })),
});
/** §2.4 PerpAssetCtx. */
export const perpAssetCtx = record(
  {
    prevDayPx: decimal,
    dayNtlVlm: decimal,
    markPx: decimal,
    midPx: orNull(decimal),
    funding: decimal,
    openInterest: decimal,
    premium: orNull(decimal),
    oraclePx: decimal,
    impactPxs: orNull(list(decimal)),
    dayBaseVlm: decimal,
  },
  ['impactPxs'],
);
/** §2.4 SpotAssetCtx. */
export const spotAssetCtx = record({
  prevDayPx: decimal,
  dayNtlVlm: decimal,
  markPx: decimal,
  midPx: orNull(decimal),
  circulatingSupply: decimal,
  coin: str,
  totalSupply: decimal,
  dayBaseVlm: decimal,
});

// §3.1 ReserveState: its fields describe it (domains/markets/service/reserves.ts RESERVE_STATE).

/** §2.8 clearinghouse state (perp account). */
const marginSummary = record({
  accountValue: decimal,
  totalNtlPos: decimal,
  totalRawUsd: decimal,
  totalMarginUsed: decimal,
});
export const clearinghouseState = record({
  marginSummary,
  crossMarginSummary: marginSummary,
  crossMaintenanceMarginUsed: decimal,
  withdrawable: decimal,
  assetPositions: list(
    record({
      type: str,
      position: record(
        {
          coin: str,
          szi: decimal,
          leverage: record({ type: { enum: ['cross', 'isolated'] }, value: int }),
          entryPx: decimal,
          positionValue: decimal,
          unrealizedPnl: decimal,
          returnOnEquity: decimal,
          liquidationPx: orNull(decimal),
          marginUsed: decimal,
          maxLeverage: int,
          cumFunding: record({ allTime: decimal, sinceOpen: decimal, sinceChange: decimal }),
        },
        ['cumFunding'],
      ),
    }),
  ),
  time: ms,
});
/** §2.8 spot clearinghouse state. */
export const spotClearinghouseState = record({
  balances: list(record({ coin: str, token: int, total: decimal, hold: decimal, entryNtl: decimal })),
});

/** §2.5 userFunding's items. */
export const fundingPayment = record({
  time: ms,
  hash: txHash,
  delta: record({
    type: { const: 'funding' },
    coin: str,
    usdc: decimal,
    szi: decimal,
    fundingRate: decimal,
    nSamples: { type: ['integer', 'null'] },
  }),
});

/** §2.6 userNonFundingLedgerUpdates' items: `delta.type` names the kind, its other fields vary by kind. */
export const ledgerUpdate = record({ time: ms, hash: txHash, delta: record({ type: str }) });

/** §2.7 a twapHistory record: `time` in seconds; the newer `stopPx`/`trigger` null (the node's lines lack them). */
export const twapHistoryItem = record({
  time: { type: 'integer', minimum: 0, description: 'epoch seconds' },
  state: record({
    coin: str,
    user: address,
    side,
    sz: decimal,
    executedSz: decimal,
    executedNtl: decimal,
    minutes: int,
    reduceOnly: bool,
    randomize: bool,
    timestamp: ms,
    stopPx: { type: 'null' },
    trigger: { type: 'null' },
  }),
  status: {
    anyOf: [
      record({ status: { enum: ['finished', 'activated', 'terminated', 'waitingForTrigger', 'stopped'] } }),
      record({ status: { const: 'error' }, description: str }),
    ],
  },
  twapId: int,
});
