// The evm subgraph schema: every type file registers itself on the builder; this builds the SDL.
import { builder } from '../builder.ts';
import './backstop.ts';
import './chain.ts';
import './ledger.ts';
import './links.ts';
import './token.ts';
import './user.ts';

builder.queryType({});
builder.subscriptionType({});

export const evmSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
