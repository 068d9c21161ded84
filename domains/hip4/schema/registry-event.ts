// Hip4RegistryEvent: a registry change as ingest read it (a new venue, question or outcome; an outcome or a question
// settled); its subscription is live-capabilities.ts'.

import type { Hip4RegistryEvent } from '../../../events/bus.ts';
import { CURSOR_DESCRIPTION, cursorOf } from '../../../kit/live.ts';
import { builder } from '../builder.ts';
import { HIP4_REGISTRY_KINDS, type Hip4RegistryKind } from '../service/streams.ts';
import { OutcomeRef, QuestionRef } from './refs.ts';

export const KindEnum = builder.enumType('Hip4RegistryKind', { values: HIP4_REGISTRY_KINDS });

const num = (e: Hip4RegistryEvent, key: string): number | null =>
  typeof e.data[key] === 'number' ? (e.data[key] as number) : null;

export const RegistryEventRef = builder.objectRef<Hip4RegistryEvent>('Hip4RegistryEvent');
RegistryEventRef.implement({
  description: 'A HIP-4 registry change',
  fields: (t) => ({
    cursor: t.string({ nullable: true, description: CURSOR_DESCRIPTION, resolve: cursorOf }),
    kind: t.field({ type: KindEnum, resolve: (e) => e.kind as Hip4RegistryKind }),
    time: t.expose('time', { type: 'Timestamp' }),
    blockNumber: t.exposeInt('block_number'),
    venue: t.string({ nullable: true, resolve: (e) => (typeof e.data.venue === 'string' ? e.data.venue : null) }),
    questionId: t.int({ nullable: true, resolve: (e) => num(e, 'question_id') }),
    outcomeId: t.int({ nullable: true, resolve: (e) => num(e, 'outcome_id') }),
    settleFraction: t.field({
      type: 'Decimal',
      nullable: true,
      resolve: (e) => (typeof e.data.settle_fraction === 'string' ? e.data.settle_fraction : null),
    }),
    settledNamedOutcomeIds: t.intList({
      nullable: true,
      listSize: { assumedSize: 1 },
      resolve: (e) =>
        Array.isArray(e.data.settled_named_outcomes) ? (e.data.settled_named_outcomes as number[]) : null,
    }),
    data: t.string({ description: 'The event as ingested, JSON text', resolve: (e) => JSON.stringify(e.data) }),
    question: t.field({
      type: QuestionRef,
      nullable: true,
      resolve: (e, _a, ctx) => {
        const id = num(e, 'question_id');
        return id === null ? null : ctx.hip4.question(id);
      },
    }),
    outcome: t.field({
      type: OutcomeRef,
      nullable: true,
      resolve: (e, _a, ctx) => {
        const id = num(e, 'outcome_id');
        return id === null ? null : ctx.hip4.outcome(id);
      },
    }),
  }),
});
