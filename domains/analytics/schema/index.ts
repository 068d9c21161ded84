// The analytics subgraph schema: every type file registers itself on the builder; this builds the SDL.
import { builder } from '../builder.ts';
import './builder-activity.ts';
import './leaderboard.ts';
import './performance.ts';
import './user.ts';

builder.queryType({});

export const analyticsSchema = builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.9' });
