// Rate limits per key across every api instance (and the router's thread, which checks keys itself): fixed
// one-minute windows whose count lives in Postgres (platform.rate_windows). An instance's first request of a key in a
// minute adds itself to the shared total before deciding (one conditional upsert), so a budget another instance spent
// is seen at once; later requests are admitted from what it knows, the total at its last sync plus what it admitted
// since, and it adds its count to the table every SYNC_MS, reading the total back. A key spread over N instances thus
// gets its limit, give or take what the others admit within one sync, instead of N times it. Storage unavailable:
// each instance goes on counting alone (it neither refuses everyone nor admits without a limit) and adds its count
// once storage answers.
import type pg from 'pg';

/** How often an instance adds what it admitted to the shared count. */
export const SYNC_MS = 1000;
/** The longest a request waits for its minute's total (the first of a key in a minute on this instance adds itself). */
const READ_WAIT_MS = 200;
/** The longest a stop waits for the last sync. */
const CLOSE_WAIT_MS = 2000;

interface Window {
  minute: number;
  /** The total of every instance at the last sync (this one's included). */
  shared: number;
  /** Admitted here and being added now. */
  sending: number;
  /** Admitted here since. */
  pending: number;
  /** The first request of this minute here, while its upsert runs (1, else 0). */
  adding: number;
  /** That upsert, while it runs (at most READ_WAIT_MS): the next requests wait for the total it reads back. */
  reading?: Promise<void>;
}

export class RateWindows {
  private readonly windows = new Map<number, Window>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> = Promise.resolve();
  private cleanedAt = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether one more request of `keyId` fits in `limit` per minute; counts it when it does. */
  async admit(keyId: number, limit: number): Promise<boolean> {
    const minute = Math.floor(this.now() / 60_000);
    let w = this.windows.get(keyId);
    if (!w || w.minute !== minute) {
      if (limit < 1) return false;
      w = { minute, shared: 0, sending: 0, pending: 0, adding: 1 };
      this.windows.set(keyId, w);
      const first = this.addFirst(keyId, w, limit);
      w.reading = first.then(() => undefined);
      return first;
    }
    await w.reading;
    if (w.minute !== minute) return this.admit(keyId, limit);
    if (w.shared + w.sending + w.pending + w.adding >= limit) return false;
    w.pending++;
    this.schedule();
    return true;
  }

  /**
   * The first request of a key in a minute here: added to the shared total when it fits (the total read back), or
   * refused when the total is at the limit already. Storage slower than READ_WAIT_MS: admitted from what this
   * instance knows (the statement, answering later, still settles the count); storage failing: counted alone.
   */
  private async addFirst(keyId: number, w: Window, limit: number): Promise<boolean> {
    const settled = this.pool
      .query<{ admitted: string }>(
        `INSERT INTO platform.rate_windows AS r (key_id, minute, admitted) VALUES ($1, $2, 1)
         ON CONFLICT (key_id, minute) DO UPDATE SET admitted = r.admitted + 1 WHERE r.admitted < $3
         RETURNING admitted`,
        [keyId, w.minute, limit],
      )
      .then(({ rows }) => {
        w.adding = 0;
        if (!rows[0]) {
          w.shared = Math.max(w.shared, limit);
          return false;
        }
        w.shared = Math.max(w.shared, Number(rows[0].admitted));
        return true;
      })
      .catch(() => {
        // Storage unavailable: counted here, added by a sync once storage answers.
        w.pending += w.adding;
        w.adding = 0;
        this.schedule();
        return true;
      });
    return (await within(settled, READ_WAIT_MS)) ?? true;
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.sync().then(() => {
        // What a failed sync gave back goes with the next one.
        if ([...this.windows.values()].some((w) => w.pending > 0)) this.schedule();
      });
    }, SYNC_MS).unref();
  }

  /** Adds every window's pending count to the shared one and reads the totals back (also at close). */
  sync(): Promise<void> {
    this.syncing = this.syncing.then(async () => {
      const sent = [...this.windows].filter(([, w]) => w.pending > 0);
      if (!sent.length) return;
      for (const [, w] of sent) {
        w.sending = w.pending;
        w.pending = 0;
      }
      try {
        const { rows } = await this.pool.query<{ key_id: string; minute: string; admitted: string }>(
          `INSERT INTO platform.rate_windows AS r (key_id, minute, admitted)
           SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
           ON CONFLICT (key_id, minute) DO UPDATE SET admitted = r.admitted + EXCLUDED.admitted
           RETURNING key_id, minute, admitted`,
          [sent.map(([id]) => id), sent.map(([, w]) => w.minute), sent.map(([, w]) => w.sending)],
        );
        const totals = new Map(rows.map((r) => [`${r.key_id} ${r.minute}`, Number(r.admitted)]));
        for (const [id, w] of sent) {
          w.shared = totals.get(`${id} ${w.minute}`) ?? w.shared + w.sending;
          w.sending = 0;
        }
        // Windows of past minutes: forgotten here, and in the table now and then.
        const minute = Math.floor(this.now() / 60_000);
        for (const [id, w] of this.windows) if (w.minute < minute && !w.pending) this.windows.delete(id);
        if (minute - this.cleanedAt >= 10) {
          this.cleanedAt = minute;
          await this.pool.query('DELETE FROM platform.rate_windows WHERE minute < $1', [minute - 10]);
        }
      } catch {
        // Not added: counted again with the next sync (what was admitted meanwhile still counts here).
        for (const [, w] of sent) {
          w.pending += w.sending;
          w.sending = 0;
        }
      }
    });
    return this.syncing;
  }

  /** The last sync, given at most CLOSE_WAIT_MS (storage down at stop: those counts are not needed after the minute). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await within(this.sync(), CLOSE_WAIT_MS);
  }
}

/** What `promise` resolves to, or undefined after `ms` if it has not by then. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
