// The evm subgraph schema: every type file registers itself on the builder, the capabilities their fields
// (capabilities.ts); this builds the SDL.
import { capabilityFields } from '../../../kit/capability-fields.ts';
import { builder, type EvmContext } from '../builder.ts';
import { EVM_CAPABILITIES } from '../capabilities.ts';
import './backstop.ts';
import './chain.ts';
import './ledger.ts';
import './links.ts';
import './token.ts';
import './user.ts';

builder.queryType({});
capabilityFields<EvmContext>(builder, EVM_CAPABILITIES, (ctx) => ctx.evm);
builder.subscriptionType({});

export const evmSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
