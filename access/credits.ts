// Credits and usage per key (spec §5.6): what every interface charges a key for a call, and what the key used per
// UTC day. The charge is one conditional UPDATE: it takes the credits only if the key still has them, so concurrent
// calls never overspend (also across processes) and a refused call costs nothing. Usage is counted in memory and written every few seconds
// (one upsert per key, day and interface), so an unlimited key's call costs no write of its own.
import type pg from 'pg';
import { type Refusal, refusal } from '../platform/error-codes.ts';

/** The interfaces usage is counted by (platform.usage.endpoint). */
export type Endpoint = 'rest' | 'ws' | 'graphql' | 'mcp';

export const INSUFFICIENT_CREDITS = 'insufficient credits';

export type ChargeOutcome = { ok: true; remaining: number | null } | Refusal<'insufficient_credits'>;

/** The key a call is charged to: its id, and its credits (null: unlimited, nothing to take). */
export interface ChargedKey {
  id: number;
  credits: number | null;
}

interface Tally {
  keyId: number;
  day: string;
  endpoint: Endpoint;
  requests: number;
  credits: number;
  refused: number;
}

const FLUSH_MS = 2_000;

interface PendingCharge {
  credits: number;
  endpoint: Endpoint;
  resolve: (outcome: ChargeOutcome) => void;
  reject: (err: unknown) => void;
}

/** A key's charges waiting for the one in flight. */
interface ChargeQueue {
  calls: PendingCharge[];
  running: boolean;
}

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class CreditLedger {
  private readonly tallies = new Map<string, Tally>();
  private readonly queues = new Map<number, ChargeQueue>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes `credits` from the key, or refuses with 402 when it has fewer left (nothing taken). A key without a credit
   * limit is only counted. The key's credits are read in the statement, never from a cached copy.
   *
   * Calls on one key that arrive while its charge is in flight are charged together by the next statement, for
   * their total (the same conditional UPDATE): concurrent callers of a key would otherwise queue one commit each on
   * its row lock. When the key cannot pay the whole group, each call of it is charged alone, in arrival order.
   */
  charge(key: ChargedKey, credits: number, endpoint: Endpoint): Promise<ChargeOutcome> {
    if (key.credits === null) {
      this.count(key.id, endpoint, credits, false);
      return Promise.resolve({ ok: true, remaining: null });
    }
    return new Promise((resolve, reject) => {
      let queue = this.queues.get(key.id);
      if (!queue) {
        queue = { calls: [], running: false };
        this.queues.set(key.id, queue);
      }
      queue.calls.push({ credits, endpoint, resolve, reject });
      if (!queue.running) void this.drain(key.id, queue);
    });
  }

  private async drain(keyId: number, queue: ChargeQueue): Promise<void> {
    queue.running = true;
    while (queue.calls.length > 0) {
      const group = queue.calls.splice(0);
      try {
        const total = group.reduce((sum, c) => sum + c.credits, 0);
        let left = await this.take(keyId, total);
        if (left !== null) {
          // Each call's remaining credits as if charged one after another in arrival order.
          left += total;
          for (const call of group) {
            left -= call.credits;
            this.settle(keyId, call, left);
          }
        } else if (group.length === 1) {
          this.settle(keyId, group[0] as PendingCharge, null);
        } else {
          for (const call of group) this.settle(keyId, call, await this.take(keyId, call.credits));
        }
      } catch (err) {
        for (const call of group) call.reject(err);
      }
    }
    queue.running = false;
    this.queues.delete(keyId);
  }

  /**
   * Gives back what `charge` took for a call that was then refused for its input (a 400 or 404 found only once it
   * ran): refused input costs nothing. The call is no longer counted in the key's usage either.
   */
  async refund(key: ChargedKey, credits: number, endpoint: Endpoint): Promise<void> {
    this.count(key.id, endpoint, -credits, false, -1);
    if (key.credits === null) return;
    await this.pool.query('UPDATE platform.api_keys SET credits = credits + $2 WHERE id = $1 AND credits IS NOT NULL', [
      key.id,
      credits,
    ]);
  }

  /** The one conditional UPDATE: the credits left after taking `credits`, or null when the key has fewer. */
  private async take(keyId: number, credits: number): Promise<number | null> {
    const { rows } = await this.pool.query<{ credits: string }>(
      'UPDATE platform.api_keys SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING credits',
      [keyId, credits],
    );
    return rows[0] ? Number(rows[0].credits) : null;
  }

  private settle(keyId: number, call: PendingCharge, left: number | null): void {
    this.count(keyId, call.endpoint, call.credits, left === null);
    call.resolve(left === null ? refusal('insufficient_credits', INSUFFICIENT_CREDITS) : { ok: true, remaining: left });
  }

  private count(keyId: number, endpoint: Endpoint, credits: number, refused: boolean, requests = 1): void {
    const day = utcDay(this.now());
    const id = `${keyId}/${day}/${endpoint}`;
    let t = this.tallies.get(id);
    if (!t) {
      t = { keyId, day, endpoint, requests: 0, credits: 0, refused: 0 };
      this.tallies.set(id, t);
    }
    if (refused) t.refused++;
    else {
      t.requests += requests;
      t.credits += credits;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush().catch(() => undefined);
    }, FLUSH_MS).unref();
  }

  /** Writes the usage counted so far (also at close). A failed write keeps the counts for the next one. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const tallies = [...this.tallies.values()];
      this.tallies.clear();
      if (tallies.length === 0) return;
      try {
        await this.pool.query(
          `INSERT INTO platform.usage (key_id, day, endpoint, requests, credits_used, refused)
           SELECT * FROM unnest($1::bigint[], $2::date[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
           ON CONFLICT (key_id, day, endpoint) DO UPDATE SET
             requests = platform.usage.requests + EXCLUDED.requests,
             credits_used = platform.usage.credits_used + EXCLUDED.credits_used,
             refused = platform.usage.refused + EXCLUDED.refused`,
          [
            tallies.map((t) => t.keyId),
            tallies.map((t) => t.day),
            tallies.map((t) => t.endpoint),
            tallies.map((t) => t.requests),
            tallies.map((t) => t.credits),
            tallies.map((t) => t.refused),
          ],
        );
      } catch (err) {
        for (const t of tallies) {
          const id = `${t.keyId}/${t.day}/${t.endpoint}`;
          const kept = this.tallies.get(id);
          if (!kept) this.tallies.set(id, t);
          else {
            kept.requests += t.requests;
            kept.credits += t.credits;
            kept.refused += t.refused;
          }
        }
        throw err;
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush().catch(() => undefined);
  }
}

export interface UsageRow {
  keyId: number;
  day: string;
  endpoint: Endpoint;
  requests: number;
  creditsUsed: number;
  refused: number;
}

/** Usage per key, day and interface, newest day first (for `keys list`). */
export async function usageOf(pool: pg.Pool, sinceDay?: string): Promise<UsageRow[]> {
  const { rows } = await pool.query<{
    key_id: string;
    day: string;
    endpoint: Endpoint;
    requests: string;
    credits_used: string;
    refused: string;
  }>(
    `SELECT key_id, to_char(day, 'YYYY-MM-DD') AS day, endpoint, requests, credits_used, refused
       FROM platform.usage WHERE day >= coalesce($1::date, '-infinity'::date)
      ORDER BY key_id, day DESC, endpoint`,
    [sinceDay ?? null],
  );
  return rows.map((r) => ({
    keyId: Number(r.key_id),
    day: r.day,
    endpoint: r.endpoint,
    requests: Number(r.requests),
    creditsUsed: Number(r.credits_used),
    refused: Number(r.refused),
  }));
}
