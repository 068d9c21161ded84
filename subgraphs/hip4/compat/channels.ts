// The hip4 channel of /ws: `hip4Events`, the registry changes (a new venue, question or outcome; an outcome or a
// question settled) as ingest reads them, optionally of some `kinds`. HIP-4 fills need no channel of their own: an
// outcome side is a coin (`#N`) like any other, so its fills reach the `trades` and `userFills`/`userEvents` channels.

import type { Channel } from '../../../kit/channel.ts';
import { SubscriptionError, sendStream } from '../../../kit/channel.ts';
import { HIP4_REGISTRY_KINDS, type Hip4RegistryKind, type Hip4Service } from '../service/index.ts';

function kindsParam(sub: Record<string, unknown>): Hip4RegistryKind[] | undefined {
  const kinds = sub.kinds;
  if (kinds === undefined || kinds === null) return undefined;
  if (
    !Array.isArray(kinds) ||
    kinds.length === 0 ||
    !kinds.every((k) => HIP4_REGISTRY_KINDS.includes(k as Hip4RegistryKind))
  ) {
    throw new SubscriptionError(`kinds: must be a non-empty array of ${HIP4_REGISTRY_KINDS.join(', ')}`);
  }
  return kinds as Hip4RegistryKind[];
}

export function hip4Channels(hip4: Hip4Service): Channel[] {
  return [
    {
      type: 'hip4Events',
      normalize: (sub) => {
        kindsParam(sub);
        return { ...sub };
      },
      start: (sub, ctx) => sendStream(hip4.streams.registry({ kinds: kindsParam(sub) }), ctx),
    },
  ];
}
