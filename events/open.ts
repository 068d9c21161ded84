// The event bus a process uses: in-process unless NATS_URL names a NATS server, then JetStream (events/jetstream.ts),
// which carries the events between an ingest role and any number of api roles.
import { type EventBus, InProcessBus } from './bus.ts';

export interface OpenBusOptions {
  /** `NATS_URL`: JetStream when set, in-process otherwise. */
  natsUrl?: string;
  log?: (line: string) => void;
}

export type OpenBus = EventBus & {
  /** Where events travel, for the start lines ("in-process", "nats://127.0.0.1:4222 (JetStream stream HL_EVENTS)"). */
  readonly describe: string;
  close(): Promise<void>;
};

export async function openEventBus(opts: OpenBusOptions = {}): Promise<OpenBus> {
  if (opts.natsUrl) {
    const { openJetStreamBus } = await import('./jetstream.ts');
    return openJetStreamBus({ url: opts.natsUrl, log: opts.log });
  }
  return Object.assign(new InProcessBus(), { describe: 'in-process', close: async () => {} });
}
