// Market is owned by the markets subgraph; hip4 only references it: an outcome side's coin (`#N`) is a market there,
// with its live book, trades and candles.
import { builder } from '../builder.ts';

export const MarketRef = builder
  .externalRef('Market', builder.keyDirective(builder.selection<{ coin: string }>('coin'), false))
  .implement({ fields: (t) => ({ coin: t.exposeString('coin') }) });
