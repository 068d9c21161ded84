// Question @key(questionId): named outcomes and a fallback outcome under one question; settled when
// `settledNamedOutcomes` becomes non-empty. Oracle-emitted (legacy) questions have no venue. Its outcomes are the
// outcomes capability's field, and Query.question the question capability's (capabilities.ts).
import { builder } from '../builder.ts';
import { venueName } from '../service/registry.ts';
import { QuestionRef, VenueRef } from './refs.ts';

QuestionRef.implement({
  description: 'A HIP-4 question: its named outcomes, the fallback outcome and which outcomes it settled to',
  fields: (t) => ({
    questionId: t.exposeInt('question_id'),
    name: t.exposeString('name'),
    description: t.exposeString('description', { description: 'Pipe-delimited key:value text' }),
    namedOutcomeIds: t.exposeIntList('named_outcomes', { listSize: { assumedSize: 4 } }),
    fallbackOutcomeId: t.exposeInt('fallback_outcome'),
    settledNamedOutcomeIds: t.exposeIntList('settled_named_outcomes', { listSize: { assumedSize: 1 } }),
    settled: t.boolean({ resolve: (q) => q.settled_named_outcomes.length > 0 }),
    venueName: t.string({
      description: 'The venue, or "oracle" for an oracle-emitted question',
      resolve: (q) => venueName(q.venue),
    }),
    venue: t.field({
      type: VenueRef,
      nullable: true,
      description: 'Null for an oracle-emitted question',
      resolve: (q, _a, ctx) => (q.venue ? ctx.hip4.venue(q.venue) : null),
    }),
    deployer: t.exposeString('deployer', { description: 'Empty for an oracle-emitted question' }),
    updatedAt: t.expose('updated_at', { type: 'Timestamp' }),
  }),
});

builder.asEntity(QuestionRef, {
  key: builder.selection<{ questionId: number }>('questionId'),
  resolveReference: (ref, ctx) => ctx.hip4.question(ref.questionId),
});
