// The markets subgraph schema: every type file registers itself on the builder; this builds the SDL.
import { builder } from '../builder.ts';
import './archive.ts';
import './book-replay.ts';
import './candle.ts';
import './hip3.ts';
import './l4-book.ts';
import './market.ts';
import './token.ts';
import './trade.ts';
import './user.ts';

builder.queryType({});
builder.subscriptionType({});

export const marketsSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
