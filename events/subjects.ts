// Subjects of the JetStream bus: `<prefix>.<topic>.<key>`, the key being what a subscriber follows one of (a coin's
// trades and book, an address's events, a token's transfers), so a replay for one key reads only its messages.
import type { Topic, Topics } from './bus.ts';

/** Each topic's key. One place: a topic added to `Topics` without a key here does not compile. */
const KEYS: { [T in Topic]: (item: Topics[T]) => string | number } = {
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

export function keyOf<T extends Topic>(topic: T, item: Topics[T]): string {
  return String(KEYS[topic](item));
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

/** The topic a subject belongs to (null for a subject of no topic this code knows: a newer publisher's). */
export function topicOfSubject(prefix: string, subject: string): Topic | null {
  const [head, topic] = subject.split('.', 3);
  return head === prefix && topic !== undefined && Object.hasOwn(KEYS, topic) ? (topic as Topic) : null;
}
