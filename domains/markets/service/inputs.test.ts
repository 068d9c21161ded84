// The markets input definitions at their bounds: what each edge (an /info body, a path route, an MCP tool, GraphQL
// arguments) refuses, since every one reads its request through these. Bounds as documented: a book's aggregation
// is the exchange's (nSigFigs 2 to 5; mantissa 1, 2 or 5 with nSigFigs 5), l2Books takes 1 to 50 coins, the live
// tools collect for 1 to 60 seconds.
import { describe, expect, it } from 'vitest';
import { nestedBody } from '../../../kit/input.ts';
import {
  ALL_CANDLES_STREAM,
  ALL_MIDS,
  CANDLE_STREAM,
  CANDLES,
  COIN,
  COLLECT_BBO,
  COLLECT_CANDLES,
  COLLECT_MIDS,
  COLLECT_TRADES,
  DEX,
  L2_BOOK,
  L2_BOOK_STREAM,
  L2_BOOKS,
} from './inputs.ts';

const coins = (n: number) => Array.from({ length: n }, (_, i) => `C${i}`);

describe('a book (l2Book, l2Books)', () => {
  it('takes nSigFigs 2 to 5, and mantissa 1, 2 or 5 with nSigFigs 5 only', () => {
    for (const nSigFigs of [2, 5]) expect(L2_BOOK.parse({ coin: 'BTC', nSigFigs })).toEqual({ coin: 'BTC', nSigFigs });
    for (const mantissa of [1, 2, 5])
      expect(L2_BOOK.parse({ coin: 'BTC', nSigFigs: 5, mantissa }).mantissa).toBe(mantissa);
    // The exchange's SDKs send null for none.
    expect(L2_BOOK.parse({ type: 'l2Book', coin: 'BTC', nSigFigs: null, mantissa: null }, 'info')).toEqual({
      coin: 'BTC',
    });
    for (const [input, error] of [
      [{ nSigFigs: 1 }, 'nSigFigs: must be an integer from 2 to 5, got 1'],
      [{ nSigFigs: 6 }, 'nSigFigs: must be an integer from 2 to 5, got 6'],
      [{ nSigFigs: 3.5 }, 'nSigFigs: must be an integer from 2 to 5, got 3.5'],
      [{ nSigFigs: 5, mantissa: 3 }, 'mantissa: must be one of 1, 2, 5, got 3'],
      [{ nSigFigs: 4, mantissa: 2 }, 'mantissa: only with nSigFigs 5'],
      [{ mantissa: 2 }, 'mantissa: only with nSigFigs 5'],
    ] as const) {
      expect(() => L2_BOOK.parse({ coin: 'BTC', ...input }, 'info')).toThrow(error);
      expect(() => L2_BOOKS.parse({ coins: ['BTC'], ...input }, 'graphql')).toThrow(error);
    }
  });

  it('l2Books takes 1 to 50 coins, a refusal naming the count', () => {
    expect(L2_BOOKS.parse({ coins: coins(50) }).coins).toHaveLength(50);
    expect(L2_BOOKS.parse({ coins: ['BTC'] }).coins).toEqual(['BTC']);
    expect(() => L2_BOOKS.parse({ coins: coins(51) }, 'info')).toThrow('coins: must hold 1 to 50 coins, got 51');
    expect(() => L2_BOOKS.parse({ coins: [] }, 'info')).toThrow('coins: must hold 1 to 50 coins, got 0');
    expect(() => L2_BOOKS.parse({ coins: ['BTC', ''] }, 'info')).toThrow('coins[1]: must be a non-empty string');
    // The MCP tool's schema states the bound to a model.
    expect(L2_BOOKS.schema.properties).toMatchObject({ coins: { minItems: 1, maxItems: 50 } });
  });
});

describe('candles', () => {
  it('takes the 16 intervals and a start not after the end; the /info body nests them in req', () => {
    const req = CANDLES.infoReader({ schema: nestedBody('req', CANDLES), nested: 'req' });
    for (const interval of ['5s', '30s', '1m', '1M']) {
      expect(CANDLES.parse({ coin: 'BTC', interval, startTime: 0 })).toEqual({ coin: 'BTC', interval, startTime: 0 });
    }
    expect(CANDLES.parse({ coin: 'BTC', interval: '1m', startTime: 5, endTime: 5 }).endTime).toBe(5);
    expect(() => CANDLES.parse({ coin: 'BTC', interval: '2m', startTime: 0 })).toThrow(
      'interval: must be one of 5s, 30s, 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 3d, 1w, 1M, got "2m"',
    );
    expect(() => CANDLES.parse({ coin: 'BTC', interval: '1m' })).toThrow('startTime: is required');
    expect(() => CANDLES.parse({ coin: 'BTC', interval: '1m', startTime: 6, endTime: 5 }, 'graphql')).toThrow(
      'startTime: must not be after endTime',
    );
    expect(() => req({ req: { coin: 'BTC', interval: '1m', startTime: 6, endTime: 5 } })).toThrow(
      'req.startTime: must not be after endTime',
    );
  });
});

describe('mids, a coin, a dex', () => {
  it('mids: any dex name ("" the main one), up to 500 coins', () => {
    expect(ALL_MIDS.parse({ dex: '' }, 'info')).toEqual({ dex: '' });
    expect(ALL_MIDS.parse({ coins: coins(500) }).coins).toHaveLength(500);
    expect(() => ALL_MIDS.parse({ coins: coins(501) })).toThrow('coins: must hold 1 to 500 coins, got 501');
    expect(() => ALL_MIDS.parse({ dex: 5 }, 'info')).toThrow('dex: must be a string, got 5');
    expect(DEX.parse({ dex: null }, 'info')).toEqual({});
  });

  it('a coin is 1 to 100 characters without NUL', () => {
    expect(COIN.parse({ coin: 'x'.repeat(100) }).coin).toHaveLength(100);
    expect(() => COIN.parse({ coin: '' })).toThrow('coin: must be a non-empty string, got ""');
    expect(() => COIN.parse({ coin: 'x'.repeat(101) })).toThrow('coin: must be a non-empty string');
    expect(() => COIN.parse({})).toThrow('coin: is required');
  });
});

describe('the live tools', () => {
  it('collect for 1 to 60 seconds', () => {
    for (const seconds of [1, 60]) {
      expect(COLLECT_BBO.parse({ coin: 'BTC', seconds })).toEqual({ coin: 'BTC', seconds });
      expect(COLLECT_CANDLES.parse({ coin: 'BTC', interval: '1m', seconds }).seconds).toBe(seconds);
    }
    for (const seconds of [0, 61]) {
      expect(() => COLLECT_BBO.parse({ coin: 'BTC', seconds })).toThrow(
        `seconds: must be an integer from 1 to 60, got ${seconds}`,
      );
      expect(() => COLLECT_TRADES.parse({ coin: 'BTC', seconds })).toThrow('seconds: must be an integer from 1 to 60');
      expect(() => COLLECT_MIDS.parse({ coins: ['BTC'], seconds })).toThrow('seconds: must be an integer from 1 to 60');
    }
    expect(() => COLLECT_BBO.parse({ coin: 'BTC' })).toThrow('seconds: is required');
  });

  it('trades: at most 5000 kept, 500 by default; mids: 1 to 50 coins', () => {
    expect(COLLECT_TRADES.parse({ coin: 'BTC', seconds: 1 }).maxTrades).toBe(500);
    expect(COLLECT_TRADES.parse({ coin: 'BTC', seconds: 1, maxTrades: 5000 }).maxTrades).toBe(5000);
    expect(() => COLLECT_TRADES.parse({ coin: 'BTC', seconds: 1, maxTrades: 5001 })).toThrow(
      'maxTrades: must be an integer from 1 to 5000, got 5001',
    );
    expect(COLLECT_MIDS.parse({ coins: coins(50), seconds: 1 }).coins).toHaveLength(50);
    expect(() => COLLECT_MIDS.parse({ coins: coins(51), seconds: 1 })).toThrow(
      'coins: must hold 1 to 50 coins, got 51',
    );
    expect(() => COLLECT_MIDS.parse({ coins: [], seconds: 1 })).toThrow('coins: must hold 1 to 50 coins, got 0');
  });
});

// The /ws channels read a subscription as an /info body: `type` and keys no definition holds are left to the ack.
describe('the live channels and subscriptions', () => {
  const INTERVALS = '5s, 30s, 1m, 3m, 5m, 15m, 30m, 1h, 2h, 4h, 8h, 12h, 1d, 3d, 1w, 1M';

  it('trades, bbo, activeAssetCtx: a coin of 1 to 100 characters', () => {
    expect(COIN.parse({ type: 'trades', coin: 'BTC' }, 'info')).toEqual({ coin: 'BTC' });
    expect(() => COIN.parse({ type: 'trades' }, 'info')).toThrow('coin: is required, must be a non-empty string');
    expect(() => COIN.parse({ type: 'bbo', coin: 42 }, 'info')).toThrow('coin: must be a non-empty string, got 42');
    expect(() => COIN.parse({ coin: '' }, 'graphql')).toThrow('coin: must be a non-empty string, got ""');
  });

  it("l2Book: the book's aggregation and the TS SDK's fast, a boolean", () => {
    const sub = { type: 'l2Book', coin: 'ETH', nSigFigs: 5, mantissa: 2, fast: true };
    expect(L2_BOOK_STREAM.parse(sub, 'info')).toEqual({ coin: 'ETH', nSigFigs: 5, mantissa: 2, fast: true });
    expect(L2_BOOK_STREAM.parse({ coin: 'ETH', nSigFigs: null, mantissa: null }, 'info')).toEqual({ coin: 'ETH' });
    expect(() => L2_BOOK_STREAM.parse({ coin: 'ETH', fast: 1 }, 'info')).toThrow('fast: must be a boolean, got 1');
    expect(() => L2_BOOK_STREAM.parse({ coin: 'ETH', nSigFigs: 4, mantissa: 2 }, 'info')).toThrow(
      'mantissa: only with nSigFigs 5',
    );
  });

  it('candle needs a coin and an interval, allCandles an interval', () => {
    expect(CANDLE_STREAM.parse({ type: 'candle', coin: 'BTC', interval: '1h' }, 'info')).toEqual({
      coin: 'BTC',
      interval: '1h',
    });
    expect(() => CANDLE_STREAM.parse({ type: 'candle', interval: '1h' }, 'info')).toThrow(
      'coin: is required, must be a non-empty string',
    );
    expect(ALL_CANDLES_STREAM.parse({ type: 'allCandles', interval: '5s' }, 'info')).toEqual({ interval: '5s' });
    expect(() => ALL_CANDLES_STREAM.parse({ type: 'allCandles' }, 'info')).toThrow(
      `interval: is required, must be one of ${INTERVALS}`,
    );
    expect(() => ALL_CANDLES_STREAM.parse({ interval: '2m' }, 'graphql')).toThrow(
      `interval: must be one of ${INTERVALS}, got "2m"`,
    );
  });
});
