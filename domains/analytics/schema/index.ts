// The analytics subgraph schema: every type file registers itself on the builder, the capabilities their fields
// (capabilities.ts); this builds the SDL.
import { capabilityFields } from '../../../kit/capability-fields.ts';
import { type AnalyticsContext, builder } from '../builder.ts';
import { ANALYTICS_CAPABILITIES } from '../capabilities.ts';
import './builder-activity.ts';
import './leaderboard.ts';
import './performance.ts';
import './user.ts';

builder.queryType({});
capabilityFields<AnalyticsContext>(builder, ANALYTICS_CAPABILITIES, (ctx) => ctx.analytics);

export const analyticsSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
