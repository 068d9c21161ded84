// The event bus a process uses: in-process unless NATS_URL names a NATS server, then JetStream (events/jetstream.ts),
// which carries the events between an ingest role and any number of api roles.
import { type Config, parseDuration } from '../platform/config.ts';
import { type EventBus, InProcessBus } from './bus.ts';
import type { TopicKey } from './subjects.ts';

export interface OpenBusOptions {
  /** `NATS_URL`: JetStream when set, in-process otherwise. */
  natsUrl?: string;
  /** `NATS_STREAM`: the stream's name; its subjects' prefix is the name in lower case. */
  stream?: string;
  /** `BUS_RETENTION`: how long the stream keeps events (ms). */
  retainMs?: number;
  /** The domains' topics and their keys (domains.ts's `DOMAIN_TOPICS`): JetStream subjects are keyed by them. */
  topics?: Readonly<Record<string, TopicKey>>;
  log?: (line: string) => void;
}

/** The bus the configuration names (NATS_URL, NATS_STREAM, BUS_RETENTION). */
export function openConfiguredBus(
  config: Pick<Config, 'natsUrl' | 'natsStream' | 'busRetention'>,
  log?: (line: string) => void,
  topics?: Readonly<Record<string, TopicKey>>,
): Promise<OpenBus> {
  return openEventBus({
    topics,
    natsUrl: config.natsUrl,
    stream: config.natsStream,
    retainMs: parseDuration(config.busRetention),
    log,
  });
}

export type OpenBus = EventBus & {
  /** Where events travel, for the start lines ("in-process", "nats://127.0.0.1:4222 (JetStream stream HL_EVENTS)"). */
  readonly describe: string;
  close(): Promise<void>;
};

export async function openEventBus(opts: OpenBusOptions = {}): Promise<OpenBus> {
  if (opts.natsUrl) {
    const { openJetStreamBus } = await import('./jetstream.ts');
    return openJetStreamBus({
      url: opts.natsUrl,
      stream: opts.stream,
      prefix: opts.stream?.toLowerCase(),
      retainMs: opts.retainMs,
      topics: opts.topics,
      log: opts.log,
    });
  }
  return Object.assign(new InProcessBus(), { describe: 'in-process', close: async () => {} });
}
