// The hip4 channel of /ws: `hip4Events`, the registry changes (a new venue, question or outcome; an outcome or a
// question settled) as ingest reads them, optionally of some `kinds`. HIP-4 fills need no channel of their own: an
// outcome side is a coin (`#N`) like any other, so its fills reach the `trades` and `userFills`/`userEvents` channels.

import type { Channel } from '../../../kit/channel.ts';
import { readChannel, sendStream } from '../../../kit/channel.ts';
import type { Hip4Service } from '../service/index.ts';
import { REGISTRY_STREAM } from '../service/inputs.ts';

export function hip4Channels(hip4: Hip4Service): Channel[] {
  return [
    readChannel({
      type: 'hip4Events',
      read: (sub) => REGISTRY_STREAM.parse(sub, 'info'),
      start: (filter, ctx) => sendStream(hip4.streams.registry(filter), ctx),
    }),
  ];
}
