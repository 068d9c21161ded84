// The market-data channels of /ws, in the exchange's shapes: allMids, l2Book, trades, bbo, candle, allCandles
// and activeAssetCtx (activeSpotAssetCtx on spot coins).

import { isSpotCoin, type MarketsService, UnknownDexError } from '../../subgraphs/markets/service/index.ts';
import { CANDLE_INTERVALS } from '../../subgraphs/markets/service/intervals.ts';
import type { WireTrade } from '../../subgraphs/markets/service/market-data.ts';
import type { Channel } from '../ws/protocol.ts';
import { SubscriptionError } from '../ws/protocol.ts';
import { optionalIn, requireString, throttled } from './helpers.ts';

/** The exchange pushes books and mids at most about twice a second. */
const BOOK_FRAME_MS = 500;

/**
 * A bus batch split by coin, once per batch whoever asks first: every subscriber of a coin then sends the same
 * array object, which the /ws encoder serializes once for all of them.
 */
function groupedByCoin<T extends { coin: string }>(): (batch: readonly T[]) => Map<string, T[]> {
  const groups = new WeakMap<readonly T[], Map<string, T[]>>();
  return (batch) => {
    let byCoin = groups.get(batch);
    if (!byCoin) {
      byCoin = new Map();
      for (const item of batch) {
        const list = byCoin.get(item.coin);
        if (list) list.push(item);
        else byCoin.set(item.coin, [item]);
      }
      groups.set(batch, byCoin);
    }
    return byCoin;
  };
}

export function marketChannels(markets: MarketsService): Channel[] {
  const { live } = markets;
  const tradesByCoin = groupedByCoin<WireTrade>();
  return [
    {
      type: 'allMids',
      normalize: (sub) => {
        const dex = sub.dex;
        if (dex !== undefined && typeof dex !== 'string') throw new SubscriptionError('dex: must be a string');
        return { ...sub };
      },
      async start(sub, ctx) {
        const dex = typeof sub.dex === 'string' && sub.dex !== '' ? sub.dex : null;
        let coins: string[] | undefined;
        try {
          coins = dex ? (await markets.meta(dex)).universe.map((u) => u.name) : undefined;
        } catch (err) {
          throw err instanceof UnknownDexError ? new SubscriptionError(err.message) : err;
        }
        // The SDK drops frames carrying dex "" for the default dex: omit the key there.
        const mids = () => (coins ? markets.allMids(coins) : markets.firstDexMids());
        const frame = () => ctx.send({ mids: mids(), ...(dex ? { dex } : {}) });
        const t = throttled(frame, BOOK_FRAME_MS);
        frame();
        const off = live.subscribe('books', () => t.poke());
        return () => {
          off();
          t.stop();
        };
      },
    },
    {
      type: 'l2Book',
      normalize: (sub) => {
        const normalized = {
          ...sub,
          coin: requireString(sub, 'coin'),
          nSigFigs: optionalIn(sub, 'nSigFigs', [2, 3, 4, 5]),
          mantissa: optionalIn(sub, 'mantissa', [1, 2, 5]),
        };
        if (normalized.mantissa !== null && normalized.nSigFigs !== 5) {
          throw new SubscriptionError('mantissa: only with nSigFigs 5');
        }
        if (sub.fast !== undefined && typeof sub.fast !== 'boolean')
          throw new SubscriptionError('fast: must be a boolean');
        return normalized;
      },
      start(sub, ctx) {
        const coin = sub.coin as string;
        const opts = {
          nSigFigs: sub.nSigFigs as 2 | 3 | 4 | 5 | null,
          mantissa: sub.mantissa as 1 | 2 | 5 | null,
          // The TS SDK's `fast`: the exchange's shallow book, 5 levels a side (the default is 20).
          ...(sub.fast === true ? { levels: 5 } : {}),
        };
        const frame = () => {
          const book = markets.books.l2(coin, opts);
          if (book) ctx.send(book);
        };
        const t = throttled(frame, BOOK_FRAME_MS);
        frame();
        const off = live.subscribe('books', (coins) => coins.includes(coin) && t.poke());
        return () => {
          off();
          t.stop();
        };
      },
    },
    {
      type: 'trades',
      normalize: (sub) => ({ ...sub, coin: requireString(sub, 'coin') }),
      start(sub, ctx) {
        const coin = sub.coin as string;
        return live.subscribe('trades', (trades) => {
          const mine = tradesByCoin(trades).get(coin);
          if (mine) ctx.send(mine);
        });
      },
    },
    {
      type: 'bbo',
      normalize: (sub) => ({ ...sub, coin: requireString(sub, 'coin') }),
      start(sub, ctx) {
        const coin = sub.coin as string;
        let last = '';
        const frame = () => {
          const bbo = markets.books.bbo(coin);
          if (!bbo) return;
          const key = JSON.stringify(bbo.bbo);
          if (key === last) return;
          last = key;
          ctx.send(bbo);
        };
        frame();
        return live.subscribe('books', (coins) => coins.includes(coin) && frame());
      },
    },
    {
      type: 'candle',
      normalize: (sub) => {
        requireString(sub, 'coin');
        if (!optionalIn(sub, 'interval', CANDLE_INTERVALS)) throw new SubscriptionError('interval: is required');
        return { ...sub };
      },
      start(sub, ctx) {
        const { coin, interval } = sub as { coin: string; interval: (typeof CANDLE_INTERVALS)[number] };
        const current = markets.candles.current(coin, interval);
        if (current) ctx.send(current);
        return live.subscribe('candles', (frames) => {
          for (const f of frames) if (f.s === coin && f.i === interval) ctx.send(f);
        });
      },
    },
    {
      type: 'allCandles',
      normalize: (sub) => {
        if (!optionalIn(sub, 'interval', CANDLE_INTERVALS)) throw new SubscriptionError('interval: is required');
        return { ...sub };
      },
      start(sub, ctx) {
        const interval = sub.interval as string;
        return live.subscribe('candles', (frames) => {
          for (const f of frames) if (f.i === interval) ctx.send(f);
        });
      },
    },
    {
      type: 'activeAssetCtx',
      channelName: (sub) => (isSpotCoin(String(sub.coin)) ? 'activeSpotAssetCtx' : 'activeAssetCtx'),
      normalize: (sub) => ({ ...sub, coin: requireString(sub, 'coin') }),
      start(sub, ctx) {
        const coin = sub.coin as string;
        const frame = () =>
          ctx.send({ coin, ctx: isSpotCoin(coin) ? markets.spotAssetCtx(coin) : markets.perpAssetCtx(coin) });
        if (markets.hasCtx(coin) || markets.mid(coin) !== null) frame();
        return live.subscribe('assetCtxs', (rows) => rows.some((r) => r.coin === coin) && frame());
      },
    },
  ];
}
