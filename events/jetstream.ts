// The NATS JetStream adapter of the event bus: what lets one ingest role feed any number of api roles.
//
// - Publishing: each batch is split by topic and key into messages on `hl.<topic>.<key>` (trades per coin, user
//   events per address, see events/subjects.ts) of one stream, `HL_EVENTS`, with bounded retention. Messages carry
//   a deterministic id (subject, block, content hash): an ingest role that restarts and publishes a block again is
//   deduplicated by the server within the stream's duplicate window, so subscribers get every event exactly once.
//   `publish` resolves once the server has stored the messages, in order (ingest waits for it before it commits).
// - Following: ONE ordered consumer per process reads the whole stream from where it stood when the bus opened and
//   fans every message out locally (one NATS subscription per instance, frames decoded once, whatever the number of
//   clients). The stream's sequence is the batch's `seq`, the same on every instance: a client's cursor taken on one
//   instance resumes on another. Ordered consumers survive a NATS restart and go on from the last sequence delivered.
// - Replay (a client resuming): a short-lived ordered consumer on the topic's (or the key's) subjects from the
//   cursor on, read up to what was pending when it started.
import { createHash } from 'node:crypto';
import {
  type ConsumerMessages,
  connect,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type NatsConnection,
  nanos,
  RetentionPolicy,
  StorageType,
} from 'nats';
import { CursorError, expired, type Handler, InProcessBus, type Topic, type Topics } from './bus.ts';
import type { OpenBus } from './open.ts';
import { subjectOf, type TopicKey, TopicKeys } from './subjects.ts';

export interface JetStreamBusOptions {
  url: string;
  /** The stream's name (`HL_EVENTS`); its subjects are `<prefix>.>`. */
  stream?: string;
  /** The subjects' first token (`hl`). */
  prefix?: string;
  /** How long the stream keeps events: what a client can resume across (default one hour). */
  retainMs?: number;
  /** The most the stream keeps, whatever their age (default 4 GiB). */
  maxBytes?: number;
  /** How long a republished message is recognised as a duplicate (default 10 min). */
  duplicateWindowMs?: number;
  /** The domains' topics and their keys, beside ingest's (domains.ts's `DOMAIN_TOPICS`). */
  topics?: Readonly<Record<string, TopicKey>>;
  log?: (line: string) => void;
}

const DEFAULTS = {
  stream: 'HL_EVENTS',
  prefix: 'hl_events',
  retainMs: 60 * 60_000,
  maxBytes: 4 * 1024 ** 3,
  duplicateWindowMs: 10 * 60_000,
};

/** At most this many publishes awaiting the server's ack at once (order is kept: NATS stores them in send order). */
const PUBLISH_WINDOW = 512;

export async function openJetStreamBus(opts: JetStreamBusOptions): Promise<OpenBus> {
  const { topics, ...rest } = opts;
  const o = { ...DEFAULTS, ...rest };
  const keys = new TopicKeys(topics);
  const log = opts.log ?? (() => {});
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: o.url,
      name: `hl-data-graph ${process.pid}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
    });
  } catch (err) {
    throw new Error(`NATS_URL=${o.url}: cannot connect (${err instanceof Error ? err.message : String(err)})`);
  }
  try {
    const jsm = await nc.jetstreamManager();
    const created = await ensureStream(jsm, o);
    const bus = new JetStreamBus(nc, nc.jetstream(), jsm, o, created, keys, log);
    await bus.follow();
    return bus;
  } catch (err) {
    await nc.close().catch(() => {});
    throw new Error(`NATS_URL=${o.url}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Creates the stream, or brings an existing one's limits to the configured ones; returns its creation time. */
async function ensureStream(jsm: JetStreamManager, o: typeof DEFAULTS): Promise<string> {
  const config = {
    name: o.stream,
    subjects: [`${o.prefix}.>`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(o.retainMs),
    max_bytes: o.maxBytes,
    // The server refuses a window longer than the retention.
    duplicate_window: nanos(Math.min(o.duplicateWindowMs, o.retainMs)),
  };
  try {
    const info = await jsm.streams.info(o.stream);
    await jsm.streams.update(o.stream, config);
    return info.created;
  } catch (err) {
    if (!/stream not found/i.test(err instanceof Error ? err.message : '')) throw err;
    return (await jsm.streams.add(config)).created;
  }
}

class JetStreamBus implements OpenBus {
  readonly epoch: string;
  readonly durable = true;
  readonly keepsMs: number;
  readonly describe: string;
  /** The local fan-out: every message of the stream is delivered here once, numbered with its stream sequence. */
  private readonly local = new InProcessBus({ retainMs: 0 });
  private following: ConsumerMessages | undefined;
  private readonly inflight: Promise<unknown>[] = [];
  private closed = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly o: typeof DEFAULTS,
    created: string,
    private readonly keys: TopicKeys,
    private readonly log: (line: string) => void,
  ) {
    // The stream's creation time names its sequence: a stream deleted and created again starts over.
    this.epoch = `j${Date.parse(created).toString(36)}`;
    this.keepsMs = o.retainMs;
    this.describe = `${o.stream} on ${nc.getServer()} (JetStream, keeping ${Math.round(o.retainMs / 60_000)} min)`;
  }

  /** Starts the one consumer that follows the stream, from its end now. */
  async follow(): Promise<void> {
    const { state } = await this.jsm.streams.info(this.o.stream);
    const consumer = await this.js.consumers.get(this.o.stream, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: state.last_seq + 1,
    });
    // Nothing earlier is delivered: a subscriber starting now stands at the stream's end.
    this.local.advanceTo(state.last_seq);
    const messages = await consumer.consume();
    this.following = messages;
    void (async () => {
      for await (const m of messages) {
        const topic = this.keys.topicOfSubject(this.o.prefix, m.subject);
        if (!topic) continue;
        let items: unknown[];
        try {
          items = m.json<unknown[]>();
        } catch {
          this.log(`event bus: message ${m.seq} on ${m.subject} is not JSON: skipped`);
          continue;
        }
        this.local.deliver(topic, items as Topics[Topic][], m.seq);
      }
    })().catch((err) => {
      if (!this.closed)
        this.log(`event bus: following ${this.o.stream} stopped: ${err instanceof Error ? err.message : err}`);
    });
  }

  async publish<T extends Topic>(topic: T, items: readonly Topics[T][]): Promise<void> {
    const byKey = new Map<string, Topics[T][]>();
    for (const item of items) {
      const key = this.keys.keyOf(topic, item);
      const list = byKey.get(key);
      if (list) list.push(item);
      else byKey.set(key, [item]);
    }
    for (const [key, group] of byKey) {
      const subject = subjectOf(this.o.prefix, topic, key);
      const data = JSON.stringify(group);
      const msgID = createHash('sha1').update(subject).update('\n').update(data).digest('base64url');
      await this.send(subject, data, msgID);
    }
    await this.flush();
  }

  /** Sends with at most PUBLISH_WINDOW unacknowledged; a failed send is retried (same id) until stored. */
  private async send(subject: string, data: string, msgID: string): Promise<void> {
    if (this.inflight.length >= PUBLISH_WINDOW) await this.inflight.shift();
    this.inflight.push(this.stored(subject, data, msgID));
  }

  private async stored(subject: string, data: string, msgID: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.js.publish(subject, data, { msgID, timeout: 5000 });
        return;
      } catch (err) {
        if (this.closed) throw err;
        // NATS down or restarting: the connection reconnects by itself; the id makes a retry harmless.
        if (attempt % 10 === 0) {
          this.log(
            `event bus: publish to ${subject} not acknowledged (${err instanceof Error ? err.message : err}); retrying`,
          );
        }
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  private async flush(): Promise<void> {
    while (this.inflight.length) await this.inflight.shift();
  }

  subscribe<T extends Topic>(topic: T, handler: Handler<Topics, T>): () => void {
    return this.local.subscribe(topic, handler);
  }

  position(): number {
    return this.local.position();
  }

  async replay<T extends Topic>(topic: T, after: number, onBatch: Handler<Topics, T>, key?: string): Promise<void> {
    const { state } = await this.jsm.streams.info(this.o.stream);
    if (after >= state.last_seq) return;
    // Messages after `after` were dropped (age or size): some of them may have been this topic's.
    if (after + 1 < state.first_seq) throw expired(topic, this.o.retainMs);
    const consumer = await this.js.consumers.get(this.o.stream, {
      filterSubjects: key === undefined ? `${this.o.prefix}.${topic}.>` : subjectOf(this.o.prefix, topic, key),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: after + 1,
    });
    let pending = (await consumer.info()).num_pending;
    while (pending > 0) {
      const messages = await consumer.fetch({ max_messages: Math.min(pending, 1000), expires: 5000 });
      let read = 0;
      for await (const m of messages) {
        read++;
        onBatch(m.json<Topics[T][]>(), m.seq);
        pending = m.info.pending;
      }
      if (read === 0) throw new CursorError('after: the event log did not answer in time; try again');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flush().catch(() => {});
    this.following?.stop();
    await this.nc.drain().catch(() => {});
  }
}
