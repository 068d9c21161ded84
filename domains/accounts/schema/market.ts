// Market is owned by the markets subgraph; accounts only references it (the market of a fill, an order, a
// liquidation), so that a client goes from an account's activity to the market's book, trades and candles.
import { builder } from '../builder.ts';

export const MarketRef = builder
  .externalRef('Market', builder.keyDirective(builder.selection<{ coin: string }>('coin'), false))
  .implement({ fields: (t) => ({ coin: t.exposeString('coin') }) });
