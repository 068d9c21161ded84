// The hip4 object types that other type files refer to, declared here and each implemented in its own file
// (fill.ts implements Hip4FillRef): the type files then need nothing of each other at run time, and none loads
// before a type it refers to exists.

import type { Hip4FillRow } from '../../../db/rows/hip4.ts';
import { builder } from '../builder.ts';
import { ANALYTICS_INTERVALS, type Hip4Position, type ProviderStats } from '../service/fills.ts';
import type { AnalyticsAnswer } from '../service/index.ts';
import type { OutcomeRow, QuestionRow, VenueRow } from '../service/registry.ts';

export const Hip4FillRef = builder.objectRef<Hip4FillRow>('Hip4Fill');
export const MarketRef = builder.objectRef<{ coin: string }>('Market');
export const OutcomeRef = builder.objectRef<OutcomeRow>('Outcome');
export const QuestionRef = builder.objectRef<QuestionRow>('Question');
export const UserRef = builder.objectRef<{ address: string }>('User');
export const VenueRef = builder.objectRef<VenueRow>('Venue');
export const PositionRef = builder.objectRef<Hip4Position>('Hip4Position');
export const ProviderRef = builder.objectRef<ProviderStats>('Hip4Provider');
export const AnalyticsRef = builder.objectRef<AnalyticsAnswer>('Hip4Analytics');
export const AnalyticsIntervalEnum = builder.enumType('Hip4AnalyticsInterval', {
  values: Object.fromEntries(ANALYTICS_INTERVALS.map((i) => [`I${i}`, { value: i }])),
});
