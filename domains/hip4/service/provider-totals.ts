// Statistics per venue over all fills, kept live: what /hip4/providers answers without a time window. Aggregating
// the whole fill history per request costs a scan of every fill (hundreds of ms at a million fills); here each fill
// is added once as ingest publishes it, and the answer is read from memory. Loaded from Postgres at start in one
// snapshot, which names the last block it holds: published fills of that block or earlier are already counted.
// A windowed request still aggregates the fills in SQL (fills.ts providers). Both count the fills of registered
// outcomes: ingest reads the registry and the fills as separate streams, so a fill may come before its outcome's
// registration; it waits here until the registration does.
import type pg from 'pg';
import type { Hip4FillRow } from '../../../db/rows/hip4.ts';
import { addDecimal, compareDecimal, mulDecimal, trimDecimal } from '../../../platform/decimal.ts';
import type { ProviderStats } from './fills.ts';
import { type OutcomeIndexEntry, venueName } from './registry.ts';

interface VenueTotals {
  outcomes: Set<number>;
  users: Set<string>;
  fills: number;
  /** Exact decimal text, as Postgres sums them. */
  volume: string;
  fees: string;
  last: number;
}

export class ProviderTotals {
  private readonly venues = new Map<string, VenueTotals>();
  /** The last block the loaded snapshot holds; until loaded, published fills wait in `pending`. */
  private loadedThrough: number | null = null;
  private pending: Hip4FillRow[] = [];
  /** Fills of outcomes not registered yet, by outcome. */
  private readonly unregistered = new Map<number, Hip4FillRow[]>();

  constructor(private readonly outcome: (id: number) => OutcomeIndexEntry | undefined) {}

  /** A published batch of fills (settlement fills are left out, as in the SQL). */
  add(fills: readonly Hip4FillRow[]): void {
    if (this.loadedThrough === null) {
      this.pending.push(...fills);
      return;
    }
    for (const f of fills) if (!f.is_settlement && f.block_number > this.loadedThrough) this.count(f);
  }

  private count(f: Hip4FillRow): void {
    const outcome = this.outcome(f.outcome_id);
    if (!outcome) {
      const waiting = this.unregistered.get(f.outcome_id);
      if (waiting) waiting.push(f);
      else this.unregistered.set(f.outcome_id, [f]);
      return;
    }
    const t = this.totalsOf(venueName(outcome.venue));
    t.outcomes.add(f.outcome_id);
    t.users.add(f.address);
    t.fills++;
    if (f.crossed) t.volume = addDecimal(t.volume, mulDecimal(f.px, f.sz));
    t.fees = addDecimal(t.fees, f.fee);
    t.last = Math.max(t.last, f.time);
  }

  /** An outcome was registered: its fills that came first count now. */
  registered(outcomeId: number): void {
    const waiting = this.unregistered.get(outcomeId);
    if (!waiting) return;
    this.unregistered.delete(outcomeId);
    for (const f of waiting) this.count(f);
  }

  /** Reads every venue's totals, its outcomes and users in one snapshot, then applies the fills published since. */
  async load(pool: pg.Pool): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const from = 'FROM hip4.fills f JOIN hip4.outcomes o ON o.outcome_id = f.outcome_id WHERE NOT f.is_settlement';
      const totals = await client.query<{ venue: string; fills: number; volume: string; fees: string; last: number }>(
        `SELECT o.venue, count(*)::int AS fills,
           coalesce(sum(f.px * f.sz) FILTER (WHERE f.crossed), 0)::text AS volume, coalesce(sum(f.fee), 0)::text AS fees,
           max(f.time) AS last ${from} GROUP BY 1`,
      );
      const members = await client.query<{ venue: string; outcomes: number[]; users: string[] }>(
        `SELECT venue, array_agg(DISTINCT outcome_id) AS outcomes, array_agg(DISTINCT address) AS users
         FROM (SELECT DISTINCT o.venue, f.outcome_id, f.address ${from}) d GROUP BY venue`,
      );
      const early = await client.query<Hip4FillRow>(
        `SELECT f.block_number, f.time, f.address, f.coin, f.outcome_id, f.side_index, f.px::text AS px,
           f.sz::text AS sz, f.side, f.dir, f.closed_pnl::text AS closed_pnl, f.hash, f.oid, f.tid, f.fee::text AS fee,
           f.fee_token, f.crossed, f.is_settlement
         FROM hip4.fills f
         WHERE NOT f.is_settlement AND NOT EXISTS (SELECT 1 FROM hip4.outcomes o WHERE o.outcome_id = f.outcome_id)`,
      );
      const through = await client.query<{ block: number | null }>('SELECT max(block_number) AS block FROM hip4.fills');
      await client.query('COMMIT');
      for (const r of totals.rows) {
        const t = this.totalsOf(venueName(r.venue));
        Object.assign(t, { fills: r.fills, volume: r.volume, fees: r.fees, last: r.last });
      }
      for (const r of members.rows) {
        const t = this.totalsOf(venueName(r.venue));
        t.outcomes = new Set(r.outcomes);
        t.users = new Set(r.users);
      }
      for (const f of early.rows) this.count(f);
      this.loadedThrough = Number(through.rows[0]?.block ?? -1);
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
    const pending = this.pending;
    this.pending = [];
    this.add(pending);
  }

  /** Every venue with a fill, by traded volume descending (then venue), as the SQL orders them. */
  rows(venue?: string): ProviderStats[] {
    const rows: ProviderStats[] = [];
    for (const [name, t] of this.venues) {
      if (t.fills === 0 || (venue !== undefined && venueName(venue) !== name)) continue;
      rows.push({
        venue: name,
        markets_traded: t.outcomes.size,
        fills: t.fills,
        volume_usdc: trimDecimal(t.volume),
        unique_users: t.users.size,
        fees: trimDecimal(t.fees),
        last_trade: t.last,
      });
    }
    return rows.sort(
      (a, b) => compareDecimal(b.volume_usdc, a.volume_usdc) || (a.venue < b.venue ? -1 : a.venue > b.venue ? 1 : 0),
    );
  }

  private totalsOf(venue: string): VenueTotals {
    let t = this.venues.get(venue);
    if (!t) {
      t = { outcomes: new Set(), users: new Set(), fills: 0, volume: '0', fees: '0', last: 0 };
      this.venues.set(venue, t);
    }
    return t;
  }
}
