// Authentication and per-key limits of spec §5, shared by compat-rest, the router and the tool server: the key
// comes as `Authorization: Bearer`, `X-API-Key` or `?api_key=` (on graphql-ws also in `connectionParams`); with
// no key configured, no key is needed (and the servers listen on loopback only); an `mcp` key is refused on REST
// and GraphQL; requests per minute are limited per key; each call is charged its credits (access/credits.ts).
import type pg from 'pg';
import { isStorageUnavailable, STORAGE_UNAVAILABLE } from '../db/unavailable.ts';
import { type Refusal, refusal } from '../platform/error-codes.ts';
import { creditsCharged } from '../platform/metrics.ts';
import { type ChargeOutcome, CreditLedger, type Endpoint } from './credits.ts';
import { type ApiKey, anyKeyConfigured, hashKey, keyOfSecret } from './keys.ts';
import { RateWindows } from './rate-windows.ts';

export type Surface = 'rest' | 'graphql' | 'mcp';

export type AuthOutcome =
  | { ok: true; key: ApiKey | null }
  | Refusal<'missing_key' | 'invalid_key' | 'revoked_key' | 'mcp_only_key' | 'storage_unavailable'>
  /** Over the key's rate: `retryAfter` seconds until its next window (the `Retry-After` header). */
  | (Refusal<'rate_limited'> & { retryAfter: number });

export interface AuthRequest {
  headers: Record<string, string | string[] | undefined>;
  /** The raw query string or URL search params, for `api_key`. */
  query?: URLSearchParams;
  /**
   * graphql-ws `connection_init` payload: browsers cannot set headers on a WebSocket upgrade, so graphql-ws clients
   * send the key here, as `authorization: "Bearer K"` or `apiKey: "K"` (also `Authorization`, `api_key`, or nested
   * in `headers`, as some clients do).
   */
  connectionParams?: unknown;
}

const bearer = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(value);
  return m ? (m[1] as string) : null;
};

const nonEmpty = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The key in graphql-ws connection params, if any. */
function paramsKey(params: unknown): string | null {
  if (!isRecord(params)) return null;
  const nested = isRecord(params.headers) ? params.headers : {};
  return (
    bearer(params.authorization) ??
    bearer(params.Authorization) ??
    nonEmpty(params.apiKey) ??
    nonEmpty(params.api_key) ??
    bearer(nested.authorization) ??
    bearer(nested.Authorization) ??
    nonEmpty(nested['x-api-key']) ??
    nonEmpty(nested['X-API-Key'])
  );
}

/** The key a request presents, if any: connection params first, then the headers, then `?api_key=`. */
export function presentedKey(req: AuthRequest): string | null {
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  return (
    paramsKey(req.connectionParams) ||
    bearer(header('authorization')) ||
    header('x-api-key') ||
    req.query?.get('api_key') ||
    null
  );
}

/** What the servers ask of authentication; the router's thread asks the main thread's Authenticator through this. */
export interface KeyChecker {
  check(req: AuthRequest, surface: Surface): Promise<AuthOutcome>;
  /**
   * Charges the key presented (null: none, nothing to charge) `credits` for one call on `endpoint`: after `check`
   * admitted it, once the call's cost is known (a batch's wallets, a GraphQL operation's fields).
   */
  charge(presented: string | null, credits: number, endpoint: Endpoint): Promise<ChargeOutcome>;
}

interface Cached<T> {
  at: number;
  value: T;
}

const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1']);

/** Whether servers bound to `host` are reachable from this machine only. */
export const isLoopbackHost = (host: string) => LOOPBACK.has(host);

/**
 * How long a request waits for a lookup whose cached answer expired before it takes that answer instead: storage
 * that does not answer in this time (stalled, restarting) must not stop the answers that need no storage.
 */
const REFRESH_WAIT_MS = 200;
/** After a lookup found storage unavailable, expired answers are used without asking it again for this long. */
const UNAVAILABLE_PAUSE_MS = 1000;

export interface AuthenticatorOptions {
  /**
   * How long a key lookup (or "no key configured") is trusted; revocation takes effect within it while storage
   * answers. While it does not (a lookup fails or takes over REFRESH_WAIT_MS), an expired answer stays in use.
   */
  cacheMs?: number;
  /**
   * A key is required even when none is configured: for servers reachable from other machines, which may serve
   * without a key only on loopback (spec §5; revoking the last key must not open them).
   */
  alwaysRequireKey?: boolean;
  now?: () => number;
}

export class Authenticator implements KeyChecker {
  private readonly keys = new Map<string, Cached<ApiKey | null>>();
  private configured: Cached<boolean> | undefined;
  /** Lookups in flight, by key hash ('' for "any key configured"): one per key at a time. */
  private readonly refreshing = new Map<string, Promise<unknown>>();
  /** When a lookup last found storage unavailable (or too slow). */
  private unavailableAt = Number.NEGATIVE_INFINITY;
  private readonly cacheMs: number;
  private readonly alwaysRequireKey: boolean;
  private readonly now: () => number;
  private readonly ledger: CreditLedger;
  private readonly rates: RateWindows;

  constructor(
    private readonly pool: pg.Pool,
    opts: AuthenticatorOptions = {},
  ) {
    this.cacheMs = opts.cacheMs ?? 10_000;
    this.alwaysRequireKey = opts.alwaysRequireKey ?? false;
    this.now = opts.now ?? Date.now;
    this.ledger = new CreditLedger(pool, this.now);
    this.rates = new RateWindows(pool, this.now);
  }

  /** Whether a key is required (always, or while some active key exists). */
  async keyRequired(): Promise<boolean> {
    if (this.alwaysRequireKey) return true;
    this.configured = await this.cached(this.configured, '', () => anyKeyConfigured(this.pool));
    return this.configured.value;
  }

  /**
   * A cached answer while it is fresh (cacheMs), else storage's. With storage unavailable (the lookup fails for it,
   * or takes over REFRESH_WAIT_MS), an expired answer stays in use: a key checked before keeps working for what
   * needs no storage; one never checked cannot be (the lookup's error, 503). One lookup per key at a time.
   */
  private async cached<T>(hit: Cached<T> | undefined, id: string, read: () => Promise<T>): Promise<Cached<T>> {
    const now = this.now();
    if (hit && now - hit.at <= this.cacheMs) return hit;
    if (hit && now - this.unavailableAt < UNAVAILABLE_PAUSE_MS) return hit;
    let pending = this.refreshing.get(id) as Promise<Cached<T>> | undefined;
    if (!pending) {
      pending = read().then((value) => ({ at: this.now(), value }));
      this.refreshing.set(id, pending);
      const done = () => this.refreshing.delete(id);
      pending.then(done, (err: unknown) => {
        done();
        if (isStorageUnavailable(err)) this.unavailableAt = this.now();
      });
    }
    if (!hit) return pending;
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), REFRESH_WAIT_MS);
    });
    try {
      const fresh = await Promise.race([pending, slow]);
      if (fresh) return fresh;
      this.unavailableAt = this.now();
      return hit;
    } catch (err) {
      if (isStorageUnavailable(err)) return hit;
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  check(req: AuthRequest, surface: Surface): Promise<AuthOutcome> {
    return this.checkKey(presentedKey(req), surface);
  }

  /**
   * The rules for a key already taken from its request (null: none presented). A key that cannot be checked because
   * storage is unavailable is refused with 503, on every transport: neither admitted nor called invalid. `count`: how
   * many requests it counts as in the key's rate limit (a /ws subscribe of many coins, one per coin).
   */
  async checkKey(presented: string | null, surface: Surface, count = 1): Promise<AuthOutcome> {
    try {
      return await this.checkKeyNow(presented, surface, count);
    } catch (err) {
      if (isStorageUnavailable(err)) return refusal('storage_unavailable', STORAGE_UNAVAILABLE);
      throw err;
    }
  }

  private async checkKeyNow(presented: string | null, surface: Surface, count: number): Promise<AuthOutcome> {
    if (!presented) {
      return (await this.keyRequired()) ? refusal('missing_key', 'missing api key') : { ok: true, key: null };
    }
    const key = await this.lookup(presented);
    if (!key) return refusal('invalid_key', 'invalid api key');
    // Its message is an invalid key's, as spec §7 words every wrong key; its code tells the holder why.
    if (key.revokedAt) return refusal('revoked_key', 'invalid api key');
    if (key.scope === 'mcp' && surface !== 'mcp') return refusal('mcp_only_key', 'mcp_only_key');
    if (!(await this.rates.admit(key.id, key.rateLimitPerMin, count))) {
      // Fixed windows: the next one starts at the next minute.
      const retryAfter = Math.max(1, Math.ceil((60_000 - (this.now() % 60_000)) / 1000));
      return {
        ...refusal('rate_limited', `rate limit exceeded: ${key.rateLimitPerMin} requests per minute`),
        retryAfter,
      };
    }
    return { ok: true, key };
  }

  /** Charges an admitted call's credits to its key (`check`'s answer; null: no key, nothing to charge). */
  async chargeKey(key: ApiKey | null, credits: number, endpoint: Endpoint): Promise<ChargeOutcome> {
    if (!key) return { ok: true, remaining: null };
    const outcome = await this.ledger.charge(key, credits, endpoint);
    if (outcome.ok) creditsCharged.inc({ endpoint }, credits);
    return outcome;
  }

  /**
   * Gives back a charge (chargeKey's) for a call refused for its input after it was charged (a 400 or 404 its
   * handler found). Storage unavailable: the credit stays taken (logged by the caller's error path, not retried).
   */
  async refundKey(key: ApiKey | null, credits: number, endpoint: Endpoint): Promise<void> {
    // The charged-credits counter keeps the charge: a Prometheus counter only grows.
    if (!key) return;
    try {
      await this.ledger.refund(key, credits, endpoint);
    } catch (err) {
      if (!isStorageUnavailable(err)) throw err;
    }
  }

  /**
   * KeyChecker's charge, for a key known by its text (the router's thread sends it so). A key revoked since its check
   * is charged nothing, as one never found.
   */
  async charge(presented: string | null, credits: number, endpoint: Endpoint): Promise<ChargeOutcome> {
    const key = presented ? await this.lookup(presented) : null;
    return this.chargeKey(key?.revokedAt ? null : key, credits, endpoint);
  }

  /** Writes the usage counted so far (platform.usage; it is written every few seconds anyway). */
  flushUsage(): Promise<void> {
    return this.ledger.flush();
  }

  /** Writes the usage and the admitted requests still counted in memory: at stop. */
  async close(): Promise<void> {
    await this.rates.close();
    await this.ledger.close();
  }

  /** Forgets cached lookups (after a key was created or revoked in this process). */
  invalidate(): void {
    this.keys.clear();
    this.configured = undefined;
  }

  /** The key a secret is, revoked or not (a revoked one is refused as such), or null: none. */
  private async lookup(presented: string): Promise<ApiKey | null> {
    const hash = hashKey(presented);
    const hit = this.keys.get(hash);
    const answer = await this.cached(hit, hash, () => keyOfSecret(this.pool, presented));
    if (answer !== hit) {
      if (this.keys.size > 100_000) this.keys.clear();
      this.keys.set(hash, answer);
    }
    return answer.value;
  }
}
