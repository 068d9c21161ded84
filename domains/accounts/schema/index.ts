// The accounts subgraph schema: every type file registers itself on the builder, the capabilities' fields are added
// (capabilities.ts), and this builds the SDL.
import { capabilityFields } from '../../../kit/capability-fields.ts';
import type { AccountsContext } from '../builder.ts';
import { builder } from '../builder.ts';
import { ACCOUNTS_CAPABILITIES } from '../capabilities.ts';
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

capabilityFields<AccountsContext>(builder, ACCOUNTS_CAPABILITIES, (ctx) => ctx.accounts);

builder.queryType({});
builder.subscriptionType({});

export const accountsSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
