// The markets subgraph schema: every type file registers itself on the builder, the capabilities' fields are added
// (capabilities.ts), and this builds the SDL.
import { capabilityFields } from '../../../kit/capability-fields.ts';
import type { MarketsContext } from '../builder.ts';
import { builder } from '../builder.ts';
import { MARKETS_CAPABILITIES } from '../capabilities.ts';
import './archive.ts';
import './book-replay.ts';
import './candle.ts';
import './hip3.ts';
import './l4-book.ts';
import './market.ts';
import './token.ts';
import './trade.ts';
import './user.ts';

capabilityFields<MarketsContext>(
  builder,
  MARKETS_CAPABILITIES,
  (ctx) => ctx.markets,
  (ctx) => ctx,
);

builder.queryType({});
builder.subscriptionType({});

export const marketsSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
