// The upstream node's POST /info (the simulator's by default): proxied types are relayed as they are, with a
// bounded timeout, and cached where the data allows (a TTL per request body).
import type { ErrorCode } from './error-codes.ts';

/** The node could not be reached in time (`reached` false), or answered what the service cannot use. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly reached = false,
  ) {
    super(message);
  }

  /** Its error code on every interface. */
  get code(): ErrorCode {
    return this.reached ? 'upstream_error' : 'upstream_unreachable';
  }

  /** What a caller is told, on every interface (spec §7): `Upstream unreachable: <reason>` or `Upstream error: ...`. */
  get callerMessage(): string {
    return `${this.reached ? 'Upstream error' : 'Upstream unreachable'}: ${this.message}`;
  }
}

export interface UpstreamReply {
  status: number;
  contentType: string;
  body: string;
}

export interface UpstreamOptions {
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** The most the relay cache holds, in characters of its keys and answers (a byte each for ASCII JSON). */
  cacheMaxChars?: number;
}

/** The relay cache's bounds by default: every cached answer of a node fits many times over (`meta` is ~30 kB). */
export const RELAY_CACHE_MAX_CHARS = 32 * 1024 * 1024;
const RELAY_CACHE_MAX_ENTRIES = 10_000;

interface CacheEntry {
  at: number;
  reply: Promise<UpstreamReply>;
  /** Characters of the key, and of the answer once it came. */
  chars: number;
}

export class Upstream {
  /** Oldest first (an entry refreshed is put back at the end), so that eviction takes the oldest. */
  private readonly cache = new Map<string, CacheEntry>();
  private cacheChars = 0;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;
  private readonly cacheMaxChars: number;

  constructor(
    readonly url: string,
    opts: UpstreamOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.fetch = opts.fetch ?? fetch;
    this.cacheMaxChars = opts.cacheMaxChars ?? RELAY_CACHE_MAX_CHARS;
  }

  /** What the relay cache holds: its entries, and their characters (keys and answers). */
  cacheSize(): { entries: number; chars: number } {
    return { entries: this.cache.size, chars: this.cacheChars };
  }

  /**
   * Relays a body; rejects with UpstreamError (reason text) when the node cannot be reached in time (the
   * configured timeout, or a shorter one for a lookup that must not hold its caller up).
   */
  async post(body: unknown, timeoutMs = this.timeoutMs): Promise<UpstreamReply> {
    let res: Response;
    try {
      res = await this.fetch(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return {
        status: res.status,
        contentType: res.headers.get('content-type') ?? 'application/json',
        body: await res.text(),
      };
    } catch (err) {
      throw new UpstreamError(reasonOf(err, timeoutMs));
    }
  }

  /**
   * Like post, but answers identical bodies from a cache for `ttlMs` (successful replies only). The caller keys it:
   * the body should hold only the fields the node reads (compat's relay sends only a type's documented fields), and
   * the cache keeps at most RELAY_CACHE_MAX_CHARS of keys and answers, the oldest going first.
   */
  cached(body: unknown, ttlMs: number): Promise<UpstreamReply> {
    const key = JSON.stringify(body);
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < ttlMs) return hit.reply;
    if (hit) this.forget(key, hit);
    const reply = this.post(body);
    const entry: CacheEntry = { at: now, reply, chars: key.length };
    this.cache.set(key, entry);
    this.cacheChars += entry.chars;
    reply.then(
      (r) => {
        if (this.cache.get(key) !== entry) return;
        if (r.status !== 200) return this.forget(key, entry);
        entry.chars += r.body.length;
        this.cacheChars += r.body.length;
        this.evict();
      },
      () => {
        if (this.cache.get(key) === entry) this.forget(key, entry);
      },
    );
    this.evict();
    return reply;
  }

  private forget(key: string, entry: CacheEntry): void {
    this.cache.delete(key);
    this.cacheChars -= entry.chars;
  }

  /** The oldest entries out until the cache is within its bounds (an answer larger than the bound is not kept). */
  private evict(): void {
    while (this.cache.size > 0 && (this.cacheChars > this.cacheMaxChars || this.cache.size > RELAY_CACHE_MAX_ENTRIES)) {
      const [key, entry] = this.cache.entries().next().value as [string, CacheEntry];
      this.forget(key, entry);
    }
  }

  /** A parsed 200 answer (for the service's own use of node data, e.g. meta); throws UpstreamError otherwise. */
  async json<T>(body: unknown, ttlMs = 0, timeoutMs = this.timeoutMs): Promise<T> {
    const reply = ttlMs > 0 ? await this.cached(body, ttlMs) : await this.post(body, timeoutMs);
    if (reply.status !== 200) throw new UpstreamError(`status ${reply.status}: ${reply.body.slice(0, 200)}`, true);
    try {
      return JSON.parse(reply.body) as T;
    } catch {
      throw new UpstreamError('invalid JSON in the answer', true);
    }
  }
}

function reasonOf(err: unknown, timeoutMs: number): string {
  if (err instanceof Error) {
    if (err.name === 'TimeoutError' || err.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
    const cause = (err as Error & { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code) return `${cause.code}${cause.message ? ` (${cause.message})` : ''}`;
    return err.message;
  }
  return String(err);
}
