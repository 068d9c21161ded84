// The hip4 object types that other type files refer to, declared here and each implemented in its own file
// (fill.ts implements Hip4FillRef): the type files then need nothing of each other at run time, and none loads
// before a type it refers to exists.
import { builder } from '../builder.ts';
import type { Hip4FillRow, OutcomeRow, QuestionRow, VenueRow } from '../service/index.ts';

export const Hip4FillRef = builder.objectRef<Hip4FillRow>('Hip4Fill');
export const MarketRef = builder.objectRef<{ coin: string }>('Market');
export const OutcomeRef = builder.objectRef<OutcomeRow>('Outcome');
export const QuestionRef = builder.objectRef<QuestionRow>('Question');
export const UserRef = builder.objectRef<{ address: string }>('User');
export const VenueRef = builder.objectRef<VenueRow>('Venue');
