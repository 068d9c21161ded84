// The upstream node's POST /info (the simulator's by default): proxied types are relayed as they are, with a
// bounded timeout, and cached where the data allows (a TTL per request body).

/** The node could not be reached in time (`reached` false), or answered what the service cannot use. */
export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly reached = false,
  ) {
    super(message);
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
}

export class Upstream {
  private readonly cache = new Map<string, { at: number; reply: Promise<UpstreamReply> }>();
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(
    readonly url: string,
    opts: UpstreamOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.fetch = opts.fetch ?? fetch;
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

  /** Like post, but answers identical bodies from a cache for `ttlMs` (successful replies only). */
  cached(body: unknown, ttlMs: number): Promise<UpstreamReply> {
    const key = JSON.stringify(body);
    const now = Date.now();
    const hit = this.cache.get(key);
    if (hit && now - hit.at < ttlMs) return hit.reply;
    const reply = this.post(body);
    this.cache.set(key, { at: now, reply });
    reply.then(
      (r) => {
        if (r.status !== 200) this.cache.delete(key);
      },
      () => this.cache.delete(key),
    );
    if (this.cache.size > 10_000) this.cache.delete(this.cache.keys().next().value as string);
    return reply;
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
