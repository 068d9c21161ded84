// Credits and usage per key (spec §5.6): what every interface charges a key for a call, and what the key used per
// UTC day. The charge is one conditional UPDATE: it takes the credits only if the key still has them, so concurrent
// calls never overspend and a refused call costs nothing. Usage is counted in memory and written every few seconds
// (one upsert per key, day and interface), so an unlimited key's call costs no write of its own.
import type pg from 'pg';

/** The interfaces usage is counted by (platform.usage.endpoint). */
export type Endpoint = 'rest' | 'ws' | 'graphql' | 'mcp';

export const INSUFFICIENT_CREDITS = 'insufficient credits';

export type ChargeOutcome = { ok: true; remaining: number | null } | { ok: false; status: 402; error: string };

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

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export class CreditLedger {
  private readonly tallies = new Map<string, Tally>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Takes `credits` from the key, or refuses with 402 when it has fewer left (nothing taken). A key without a credit
   * limit is only counted. The key's credits are read in the statement, never from a cached copy.
   */
  async charge(key: ChargedKey, credits: number, endpoint: Endpoint): Promise<ChargeOutcome> {
    if (key.credits === null) {
      this.count(key.id, endpoint, credits, false);
      return { ok: true, remaining: null };
    }
    const { rows } = await this.pool.query<{ credits: string }>(
      `UPDATE platform.api_keys SET credits = credits - $2
        WHERE id = $1 AND credits >= $2 RETURNING credits`,
      [key.id, credits],
    );
    const row = rows[0];
    this.count(key.id, endpoint, credits, !row);
    if (!row) return { ok: false, status: 402, error: INSUFFICIENT_CREDITS };
    return { ok: true, remaining: Number(row.credits) };
  }

  private count(keyId: number, endpoint: Endpoint, credits: number, refused: boolean): void {
    const day = utcDay(this.now());
    const id = `${keyId}/${day}/${endpoint}`;
    let t = this.tallies.get(id);
    if (!t) {
      t = { keyId, day, endpoint, requests: 0, credits: 0, refused: 0 };
      this.tallies.set(id, t);
    }
    if (refused) t.refused++;
    else {
      t.requests++;
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
