// Subjects of the JetStream bus: `<prefix>.<topic>.<key>`, the key being what a subscriber follows one of (a coin's
// trades and book, an address's events, a token's transfers), so a replay for one key reads only its messages.
import type { NodeTopics, Topic, Topics } from './bus.ts';

/** How a topic's item is keyed: what a subscriber follows one of. */
export type TopicKey<I = never> = (item: I) => string | number;

/** Each of ingest's topics' key. A topic added to `NodeTopics` without a key here does not compile. */
const NODE_KEYS: { [T in keyof NodeTopics]: TopicKey<NodeTopics[T]> } = {
  fills: (r) => r.address,
  trades: (r) => r.coin,
  orderStatuses: (r) => r.address,
  bookDiffs: (r) => r.coin,
  twapStatuses: (r) => r.address,
  fundingPayments: (r) => r.address,
  ledgerUpdates: (r) => r.address,
  ledgerTransfers: (r) => r.address,
  liquidations: (r) => r.liquidated_user,
  assetCtxs: (r) => r.coin,
  reserves: (r) => r.token,
  hip4Registry: (r) => r.kind,
  hip4Fills: (r) => r.coin,
  evmBlocks: () => 'all',
  evmTransfers: (r) => r.token,
  backstopTransfers: (r) => r.dex_id,
  otherMisc: (r) => r.kind,
  gaps: (r) => r.stream,
};

/** The keys of every topic a bus carries: ingest's, and those the domains declare (domains.ts's `DOMAIN_TOPICS`). */
export class TopicKeys {
  private readonly keys: Readonly<Record<string, TopicKey<never>>>;

  constructor(domainTopics: Readonly<Record<string, TopicKey<never>>> = {}) {
    for (const topic of Object.keys(domainTopics)) {
      if (Object.hasOwn(NODE_KEYS, topic)) throw new Error(`bus topic ${JSON.stringify(topic)} is ingest's own`);
    }
    this.keys = { ...NODE_KEYS, ...domainTopics };
  }

  keyOf<T extends Topic>(topic: T, item: Topics[T]): string {
    const key = this.keys[topic] as TopicKey<Topics[T]> | undefined;
    if (!key) throw new Error(`bus topic ${JSON.stringify(topic)} is declared by no domain`);
    return String(key(item));
  }

  /** The topic a subject belongs to (null for a subject of no topic this process knows: a newer publisher's). */
  topicOfSubject(prefix: string, subject: string): Topic | null {
    const [head, topic] = subject.split('.', 3);
    return head === prefix && topic !== undefined && Object.hasOwn(this.keys, topic) ? (topic as Topic) : null;
  }
}

/**
 * A subject token may not hold `.`, `*`, `>` or white space: anything but letters, digits and `_-:@/#` is written
 * `%XX` (so `%` itself too); an empty key is `%`.
 */
function token(key: string): string {
  if (key === '') return '%';
  return key.replace(/[^A-Za-z0-9_\-:@/#]/g, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

export const subjectOf = (prefix: string, topic: Topic, key: string) => `${prefix}.${topic}.${token(key)}`;
