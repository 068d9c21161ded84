// The accounts subgraph schema: every type file registers itself on the builder; this builds the SDL.
import { builder } from '../builder.ts';
import './account.ts';
import './fill.ts';
import './holdings.ts';
import './funding.ts';
import './ledger.ts';
import './liquidation.ts';
import './market.ts';
import './order.ts';
import './twap.ts';
import './user.ts';
import './user-event.ts';

builder.queryType({});
builder.subscriptionType({});

export const accountsSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
