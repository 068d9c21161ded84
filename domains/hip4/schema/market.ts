// Market @key(coin) is the markets subgraph's (its book, trades and candles); hip4 adds what an outcome side's coin
// (`#<10·outcome+side>`) is: its outcome and side. Every other coin has neither.
import { builder } from '../builder.ts';
import { parseSideCoin } from '../service/registry.ts';
import { MarketRef, OutcomeRef } from './refs.ts';

MarketRef.implement({
  fields: (t) => ({
    coin: t.exposeString('coin'),
    outcome: t.field({
      type: OutcomeRef,
      nullable: true,
      description: 'The HIP-4 outcome a `#N` coin trades a side of (null for other coins)',
      resolve: (m, _a, ctx) => {
        const side = m.coin.startsWith('#') ? parseSideCoin(m.coin) : null;
        return side ? ctx.hip4.outcome(side.outcomeId) : null;
      },
    }),
    outcomeSide: t.int({
      nullable: true,
      description: 'The side of its outcome a `#N` coin trades (0 or 1; null for other coins)',
      resolve: (m) => (m.coin.startsWith('#') ? (parseSideCoin(m.coin)?.side ?? null) : null),
    }),
  }),
});

builder.asEntity(MarketRef, {
  key: builder.selection<{ coin: string }>('coin'),
  resolveReference: (ref) => ({ coin: ref.coin }),
});
