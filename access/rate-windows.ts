// Rate limits per key across every api instance: fixed one-minute windows whose count lives in Postgres
// (platform.rate_windows). An instance admits from what it knows, the total at its last sync plus what it admitted
// since, and adds its own count to the table every SYNC_MS, reading the total back; its first request of a key in a
// minute reads the total before deciding. A key spread over N instances thus gets its limit, give or take what
// the others admit within one sync, instead of N times it. Storage unavailable: each instance goes on counting
// alone (it neither refuses everyone nor admits without a limit) and adds its count once storage answers.
import type pg from 'pg';

/** How often an instance adds what it admitted to the shared count. */
export const SYNC_MS = 1000;
/** The longest a request waits for its minute's total (the first of a key in a minute on this instance). */
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
  /** The first read of this minute's total, while it runs. */
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

  /**
   * Whether one more request of `keyId` fits in `limit` per minute; counts it when it does. A request standing for
   * `count` (a /ws subscribe of many coins) fits when all of them do, and counts as that many.
   */
  async admit(keyId: number, limit: number, count = 1): Promise<boolean> {
    const minute = Math.floor(this.now() / 60_000);
    let w = this.windows.get(keyId);
    if (!w || w.minute !== minute) {
      w = { minute, shared: 0, sending: 0, pending: 0 };
      this.windows.set(keyId, w);
      w.reading = this.readTotal(keyId, w);
    }
    await w.reading;
    if (w.minute !== minute) return this.admit(keyId, limit, count);
    if (w.shared + w.sending + w.pending + count > limit) return false;
    w.pending += count;
    this.schedule();
    return true;
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

  /**
   * Reads the minute's total into `w`, waiting at most READ_WAIT_MS: storage that is slow or stalled must not hold
   * requests up (a read that answers later still updates the window).
   */
  private async readTotal(keyId: number, w: Window): Promise<void> {
    const read = this.pool
      .query<{ admitted: string }>('SELECT admitted FROM platform.rate_windows WHERE key_id = $1 AND minute = $2', [
        keyId,
        w.minute,
      ])
      .then(({ rows }) => {
        w.shared = Math.max(w.shared, Number(rows[0]?.admitted ?? 0));
      })
      .catch(() => {
        // Storage unavailable: this instance counts alone until a sync gets through.
      });
    await atMost(read, READ_WAIT_MS);
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
    await atMost(this.sync(), CLOSE_WAIT_MS);
  }
}

/** Waits for `promise`, or `ms`, whichever comes first. */
async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}
