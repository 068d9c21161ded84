// The hip4 subgraph schema: every type file registers itself on the builder; this builds the SDL.
import { builder } from '../builder.ts';
import './fill.ts';
import './market.ts';
import './outcome.ts';
import './question.ts';
import './registry-event.ts';
import './user.ts';
import './venue.ts';

builder.queryType({});
builder.subscriptionType({});

export const hip4Schema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
