// The hip4 domain's live streams, each defined once with its rules: GraphQL subscriptions and the /ws channel adapt
// them. Fills arrive from ingest per block (topic hip4Fills); a fill names only its coin, so the question and venue
// filters read the service's outcome index. Registry changes (topic hip4Registry) carry the registry event as ingest
// read it: a new venue, question or outcome, an outcome or a question settled.
import type { Hip4FillRow } from '../../../db/rows/hip4.ts';
import type { EventBus, Hip4RegistryEvent } from '../../../events/bus.ts';
import { type ResumableStream, topicStream } from '../../../kit/live.ts';
import type { FillStreamInput, RegistryStreamInput } from './inputs.ts';
import { type OutcomeIndexEntry, storedVenue } from './registry.ts';

/** The registry event kinds ingest publishes (ingest/formats/extra.ts). */
export const HIP4_REGISTRY_KINDS = [
  'VenueRegistered',
  'QuestionRegistered',
  'OutcomeRegistered',
  'OutcomeSettled',
  'QuestionSettled',
] as const;
export type Hip4RegistryKind = (typeof HIP4_REGISTRY_KINDS)[number];

export class Hip4Streams {
  constructor(
    private readonly bus: EventBus,
    private readonly outcome: (id: number) => OutcomeIndexEntry | undefined,
  ) {}

  /** HIP-4 fills per block, of one outcome, of a question's outcomes or of a venue's (one filter at most). */
  fills(filter: FillStreamInput): ResumableStream<Hip4FillRow[]> {
    const venue = filter.venue === undefined ? undefined : storedVenue(filter.venue);
    const matches = (f: Hip4FillRow): boolean => {
      if (filter.outcomeId !== undefined) return f.outcome_id === filter.outcomeId;
      const o = this.outcome(f.outcome_id);
      if (filter.questionId !== undefined) return o?.questionId === filter.questionId;
      if (venue !== undefined) return (o?.venue ?? '') === venue;
      return true;
    };
    return topicStream(this.bus, 'hip4Fills', (items) => {
      const batch = items.filter(matches);
      return batch.length ? [batch] : [];
    });
  }

  /** Registry changes as they are ingested, of the given kinds (all when none is given). */
  registry(filter: RegistryStreamInput = {}): ResumableStream<Hip4RegistryEvent> {
    const kinds = filter.kinds?.length ? new Set<string>(filter.kinds) : null;
    return topicStream(this.bus, 'hip4Registry', (items) => (kinds ? items.filter((e) => kinds.has(e.kind)) : items));
  }
}
