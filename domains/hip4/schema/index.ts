// The hip4 subgraph schema: every type file registers itself on the builder; this builds the SDL.
import { capabilityFields } from '../../../kit/capability-fields.ts';
import { builder, type Hip4Context } from '../builder.ts';
import { HIP4_CAPABILITIES } from '../capabilities.ts';
import './fill.ts';
import './market.ts';
import './outcome.ts';
import './question.ts';
import './registry-event.ts';
import './user.ts';
import './venue.ts';

builder.queryType({});
capabilityFields<Hip4Context>(builder, HIP4_CAPABILITIES, (ctx) => ctx.hip4);
builder.subscriptionType({});

export const hip4Schema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
