// The hip4 domain's live capabilities (kit/capability.ts `live`): its fills per block and its registry changes, each
// resumed from the event bus's log after a cursor; the registry changes are also the /ws channel `hip4Events`. HIP-4
// fills need no channel of their own: an outcome side is a coin (`#N`) like any other, so its fills reach the
// `trades` and `userFills`/`userEvents` channels.
import type { Capability } from '../../kit/capability.ts';
import { liveCapability } from '../../kit/capability.ts';
import { Hip4FillRef } from './schema/refs.ts';
import { KindEnum, RegistryEventRef } from './schema/registry-event.ts';
import type { Hip4Service } from './service/index.ts';
import { FILL_STREAM, REGISTRY_STREAM } from './service/inputs.ts';

export const LIVE_CAPABILITIES: readonly Capability<Hip4Service>[] = [
  liveCapability({
    name: 'fillsStream',
    input: FILL_STREAM,
    live: {
      name: 'hip4Fills',
      resumable: ({ streams }, filter) => streams.fills(filter),
      subscription: {
        type: Hip4FillRef,
        batch: 20,
        description: 'HIP-4 fills per block: of one outcome, of a question or of a venue (at most one filter)',
      },
    },
  }),
  liveCapability({
    name: 'registryStream',
    input: REGISTRY_STREAM,
    live: {
      name: 'hip4Registry',
      resumable: ({ streams }, filter) => streams.registry(filter),
      subscription: {
        type: RegistryEventRef,
        types: { kinds: [KindEnum] },
        description: 'HIP-4 registry changes as they are ingested: new venues, questions, outcomes; settlements',
      },
      channel: { type: 'hip4Events' },
    },
  }),
];
