// One batch of the analytics derivation (job.ts runs them): the events it loads from the checkpoint, the round trips,
// sums, snapshots and builder activity it derives from them in time order (job.ts's header states the rules), and
// the rows it writes in bulk statements (the fill-driven sums grouped in SQL: statements.ts).
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type pg from 'pg';
import { copyRow } from '../../../db/copy.ts';
import { type ClientQueue, type Queryable, WRITE_STATEMENT_TIMEOUT_MS } from '../../../db/pool.ts';
import { abs, add, cmp, div, mul, neg, type Ratio, ratio, sign, sub, ZERO } from '../../../platform/decimal.ts';
import {
  type CashLedgerEvent,
  cashLedgerOf,
  ledgerCash,
  type PerpFillEvent,
  type PerpFundingEvent,
  perpFillsOf,
  perpFundingOf,
} from '../../accounts/port.ts';
import { DAY_MS, HOUR_MS } from '../service/window.ts';
import {
  batchDaysStatements,
  columns,
  daySumsStatement,
  dec,
  entry,
  hourSumsStatement,
  type Statement,
  StoredFigure,
} from './statements.ts';

/**
 * Events applied between yields to the event loop: the job runs in ingest's process (`npm start`), and a batch's
 * arithmetic held the loop for the whole batch (about a second per 10 000 fills), stalling ingest's own I/O.
 */
const EVENTS_PER_SLICE = 1_000;
/**
 * The columns of the two largest writes. Their plain inserts (snapshots, the trips a batch opened) go by COPY, each
 * row a line of text made as it is final (no object kept per row): in Postgres a third of the time of one JSON
 * parameter (json_populate_recordset), itself cheaper than an array literal per column. Trips read back are upserted
 * from one JSON parameter (COPY has no ON CONFLICT).
 */
const SNAPSHOT_COLUMNS = `address, time, account_value, cash, position_value, unrealized_pnl, account_leverage,
  n_positions, positions`;
const TRIP_NAMES = [
  'address',
  'coin',
  'opened_at',
  'open_seq',
  'closed_at',
  'direction',
  'size',
  'position',
  'entry_px',
  'exit_px',
  'notional',
  'pnl',
  'fees',
  'funding',
  'leverage',
  'fills',
  'entry_sz',
  'entry_ntl',
  'exit_sz',
  'exit_ntl',
  'status',
] as const;
const TRIP_COLUMNS = TRIP_NAMES.join(', ');
/** How a trip read back is written: whole, over its stored row. */
const TRIP_UPSERT = `ON CONFLICT (address, coin, opened_at, open_seq) DO UPDATE SET closed_at = EXCLUDED.closed_at,
  size = EXCLUDED.size, position = EXCLUDED.position, entry_px = EXCLUDED.entry_px, exit_px = EXCLUDED.exit_px,
  notional = EXCLUDED.notional, pnl = EXCLUDED.pnl, fees = EXCLUDED.fees, funding = EXCLUDED.funding,
  fills = EXCLUDED.fills, entry_sz = EXCLUDED.entry_sz, entry_ntl = EXCLUDED.entry_ntl, exit_sz = EXCLUDED.exit_sz,
  exit_ntl = EXCLUDED.exit_ntl, status = EXCLUDED.status`;
/** A write of a batch: a statement, or rows (COPY text lines) copied into a table and its columns. */
type Write = Statement | { into: string; rows: string[] };

/** Closed trips and snapshots a batch holds before writing them ahead of its end (endHour). */
const FLUSHED_ROWS = 50_000;

/**
 * A statement of a batch: allowed ingest's time (the service's 3 s limit is for answers; a batch reads and writes
 * tens of thousands of rows), after which the connection is given up as stalled.
 */
export function query<R extends pg.QueryResultRow = pg.QueryResultRow>(
  c: Queryable,
  text: string,
  values?: unknown[],
  timeoutMs = WRITE_STATEMENT_TIMEOUT_MS,
): Promise<pg.QueryResult<R>> {
  return c.query<R>({ text, values, query_timeout: timeoutMs } as pg.QueryConfig);
}

// The events of accounts' tables a batch derives from, as accounts' port reads them (told apart by their columns:
// tagging each row with its kind cost a property added to every fill, which slowed the walk and its sort).
type FillEvent = PerpFillEvent;
type FundingEvent = PerpFundingEvent;
type LedgerEvent = CashLedgerEvent;
type DeriveEvent = FillEvent | FundingEvent | LedgerEvent;

export const isFill = (e: DeriveEvent): e is FillEvent => 'px' in e;
const isFunding = (e: DeriveEvent): e is FundingEvent => 'usdc' in e;

/**
 * The three reads (each in its own order, by time first) as one list in the order they are derived: by time, and
 * within a millisecond its fills, then its funding, then its ledger updates.
 */
function inTimeOrder(fills: FillEvent[], funding: FundingEvent[], ledger: LedgerEvent[]): DeriveEvent[] {
  const events: DeriveEvent[] = new Array(fills.length + funding.length + ledger.length);
  let i = 0;
  let j = 0;
  let k = 0;
  for (let n = 0; n < events.length; n++) {
    const tf = i < fills.length ? (fills[i] as FillEvent).time : Number.POSITIVE_INFINITY;
    const tu = j < funding.length ? (funding[j] as FundingEvent).time : Number.POSITIVE_INFINITY;
    const tl = k < ledger.length ? (ledger[k] as LedgerEvent).time : Number.POSITIVE_INFINITY;
    if (tf <= tu && tf <= tl) events[n] = fills[i++] as FillEvent;
    else if (tu <= tl) events[n] = funding[j++] as FundingEvent;
    else events[n] = ledger[k++] as LedgerEvent;
  }
  return events;
}

interface Trip {
  address: string;
  coin: string;
  openedAt: number;
  openSeq: number;
  closedAt: number | null;
  direction: 'long' | 'short';
  size: Ratio;
  position: Ratio;
  pnl: Ratio;
  fees: Ratio;
  funding: Ratio;
  leverage: string | null;
  fills: number;
  entrySz: Ratio;
  entryNtl: Ratio;
  /** Its entry price as last worked out (`entryOf`), with the figures it was worked from. */
  entry: { sz: Ratio; ntl: Ratio; px: Ratio; text: string } | null;
  exitSz: Ratio;
  exitNtl: Ratio;
  /** Opened or filled by the batch (else only paid funding: its funding alone is written back). */
  filled: boolean;
  /** Read back from round_trips (else opened by the batch: no row of it is stored, its checkpoint is before it). */
  stored: boolean;
}

interface Account {
  cash: Ratio;
  lastEvent: number;
  snapshotValue: Ratio | null;
  /** The latest snapshot's unrealized PnL (as text): what the leaderboards show beside its value. */
  snapshotUnrealized: string | null;
  /** Its open trips, by coin. */
  open: Map<string, Trip>;
  /** The hour and day of its latest event, and their sums (entries of the batch's `hourly` and `daily`). */
  hour: number;
  hourSums: Sums;
  day: number;
  daySums: Sums;
  /** The time of its latest trip opened per coin, and how many it opened at that millisecond before. */
  opened: Map<string, { time: number; n: number }>;
}

const newAccount = (
  cash: Ratio,
  lastEvent: number,
  snapshotValue: Ratio | null,
  unrealized: string | null,
): Account => ({
  cash,
  lastEvent,
  snapshotValue,
  snapshotUnrealized: unrealized,
  open: new Map(),
  hour: -1,
  hourSums: NO_SUMS,
  day: -1,
  daySums: NO_SUMS,
  opened: new Map(),
});

/**
 * The sums of an address and hour (or day) only the walk in time order knows; the fill-driven ones (fills, volume,
 * realized PnL, fees, builder activity) are grouped in SQL from the batch's fills (statements.ts).
 */
export interface Sums {
  funding: Ratio;
  wins: number;
  losses: number;
  /** Closed trips, whatever their result (wins and losses leave out a trip closed at exactly zero). */
  trips: number;
  longs: number;
  shorts: number;
}

const emptySums = (): Sums => ({
  funding: ZERO,
  wins: 0,
  losses: 0,
  trips: 0,
  longs: 0,
  shorts: 0,
});
/** An account's sums before its first event of the batch (never written: `hour` -1 matches no event). */
const NO_SUMS: Sums = Object.freeze(emptySums());

/** One batch's state: what it loaded, what it changed, and the rows it writes. */
export class DerivationBatch {
  /** Trips created or changed (written back whole). */
  private readonly changed = new Set<Trip>();
  private readonly accounts = new Map<string, Account>();
  private readonly marks = new Map<string, { px: Ratio; time: number }>();
  private readonly changedMarks = new Set<string>();
  /** The walked sums of each day (its first ms), by address. */
  private readonly daily = new Map<number, Map<string, Sums>>();
  /** The walked sums of the hour being walked (written when it ends), by address. */
  private hourly = new Map<string, Sums>();
  /** Each address's first hour with walked sums in the batch (user_totals' `first_hour`). */
  private readonly firstHours = new Map<string, number>();
  /** Rows of account_snapshots, as COPY text lines. */
  private snapshots: string[] = [];

  private marksLoaded = false;
  private daysGrouped = false;
  /** The writes `endHour` started, running on the batch's connection while it walks on. */
  private writing: Promise<void> = Promise.resolve();
  /** Settles when the statements sent so far are built and handed to the connection (`send`, in order). */
  private built: Promise<void> = Promise.resolve();

  /**
   * `c`: the batch's transaction, its statements queued (reads ahead and writes behind the walk are in flight
   * together); `range`: the batch's, [from, end), `from` its checkpoint; `derivedBefore`: whether a batch committed
   * before this one (else no derived row is stored: the tables are as a reset leaves them); `timeoutMs`: each
   * statement's limit.
   */
  constructor(
    private readonly c: ClientQueue,
    private readonly range: [number, number],
    private readonly derivedBefore = true,
    private readonly timeoutMs = WRITE_STATEMENT_TIMEOUT_MS,
  ) {}

  private query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]) {
    return query<R>(this.c, text, values, this.timeoutMs);
  }

  /** The events of [from, end) (a part of the batch's range) in the order they are derived. */
  async read(from: number, end: number): Promise<DeriveEvent[]> {
    if (!this.marksLoaded) {
      const { rows: marks } = await this.query<{ coin: string; px: string; time: number }>(
        'SELECT coin, px::text AS px, time FROM analytics.marks',
      );
      for (const m of marks) this.marks.set(m.coin, { px: ratio(m.px), time: m.time });
      this.marksLoaded = true;
    }
    const fills = await perpFillsOf(this.c, from, end, this.timeoutMs);
    // Every perp coin's funding, not only the coins filled so far: a payment on a position opened before the stored
    // history is still money paid or received that day (it once went missing from the calendar and performance sums).
    const funding = await perpFundingOf(this.c, from, end, this.timeoutMs);
    const ledger = await cashLedgerOf(this.c, from, end, this.timeoutMs);
    return inTimeOrder(fills, funding, ledger);
  }

  /** Reads the state and open trips of the accounts of `events` not loaded yet (before `run` applies them). */
  async loadAccountsOf(events: DeriveEvent[]): Promise<void> {
    const missing = new Set<string>();
    for (const e of events) if (!this.accounts.has(e.address)) missing.add(e.address);
    await this.loadAccounts([...missing]);
  }

  /** Reads the state and open trips of `addresses` not loaded yet. */
  private async loadAccounts(addresses: string[]): Promise<void> {
    const missing = addresses.filter((a) => !this.accounts.has(a));
    if (!missing.length) return;
    for (const a of missing) this.accounts.set(a, newAccount(ZERO, 0, null, null));
    const { rows } = await this.query<{
      address: string;
      cash: string;
      last_event: number;
      snapshot_value: string | null;
      snapshot_unrealized: string | null;
    }>(
      `SELECT address, cash::text AS cash, last_event, snapshot_value::text AS snapshot_value,
         snapshot_unrealized::text AS snapshot_unrealized
       FROM analytics.account_state WHERE address = ANY($1)`,
      [missing],
    );
    for (const r of rows) {
      this.accounts.set(
        r.address,
        newAccount(
          ratio(r.cash),
          r.last_event,
          r.snapshot_value === null ? null : ratio(r.snapshot_value),
          r.snapshot_unrealized,
        ),
      );
    }
    const { rows: trips } = await this.query(
      `SELECT address, coin, opened_at, open_seq, direction, size::text, position::text, pnl::text, fees::text,
         funding::text, leverage::text, fills, entry_sz::text, entry_ntl::text, exit_sz::text, exit_ntl::text
       FROM analytics.round_trips WHERE address = ANY($1) AND status = 'open'`,
      [missing],
    );
    for (const t of trips) {
      (this.accounts.get(t.address) as Account).open.set(t.coin, {
        address: t.address,
        coin: t.coin,
        openedAt: Number(t.opened_at),
        openSeq: Number(t.open_seq),
        closedAt: null,
        direction: t.direction,
        size: new StoredFigure(t.size),
        position: new StoredFigure(t.position),
        pnl: new StoredFigure(t.pnl),
        fees: new StoredFigure(t.fees),
        funding: new StoredFigure(t.funding),
        leverage: t.leverage,
        fills: t.fills,
        entrySz: new StoredFigure(t.entry_sz),
        entryNtl: new StoredFigure(t.entry_ntl),
        entry: null,
        exitSz: new StoredFigure(t.exit_sz),
        exitNtl: new StoredFigure(t.exit_ntl),
        filled: false,
        stored: true,
      });
    }
  }

  /**
   * Applies the events of [from, end) (the batch's, or a part of it) in order, taking each hour's snapshots once
   * every event before its close is applied.
   */
  async run(events: DeriveEvent[], from: number, end: number): Promise<void> {
    let nextHour = Math.floor(from / HOUR_MS) * HOUR_MS + HOUR_MS;
    let applied = 0;
    for (const e of events) {
      if (++applied % EVENTS_PER_SLICE === 0) await yieldToLoop();
      while (e.time >= nextHour) {
        await this.snapshotHour(nextHour);
        nextHour += HOUR_MS;
      }
      const account = this.accounts.get(e.address) as Account;
      account.lastEvent = Math.max(account.lastEvent, e.time);
      if (isFill(e)) this.fill(e, account);
      else if (isFunding(e)) this.funding(e, account);
      else account.cash = add(account.cash, ledgerCash(e.address, e.delta_type, e.delta));
    }
    for (; nextHour <= end; nextHour += HOUR_MS) await this.snapshotHour(nextHour);
  }

  /** Points the account's `hourSums` and `daySums` at those of `time` (events come in time order). */
  private sumsAt(address: string, account: Account, time: number): void {
    const hour = Math.floor(time / HOUR_MS) * HOUR_MS;
    if (hour === account.hour) return;
    account.hour = hour;
    // (`hourly` holds the hour being walked: events come in time order, a batch's hours one after another.)
    account.hourSums = entry(this.hourly, address, emptySums);
    if (!this.firstHours.has(address)) this.firstHours.set(address, hour);
    const day = Math.floor(time / DAY_MS) * DAY_MS;
    if (day === account.day) return;
    account.day = day;
    account.daySums = entry(
      entry(this.daily, day, () => new Map<string, Sums>()),
      address,
      emptySums,
    );
  }

  private fill(f: FillEvent, account: Account): void {
    const px = ratio(f.px);
    const sz = ratio(f.sz);
    const fee = ratio(f.fee);
    const closedPnl = ratio(f.closed_pnl);
    const start = ratio(f.start_position);
    const end = add(start, f.side === 'B' ? sz : neg(sz));
    account.cash = add(account.cash, sub(closedPnl, fee));
    const mark = this.marks.get(f.coin);
    if (mark) {
      mark.px = px;
      mark.time = f.time;
    } else this.marks.set(f.coin, { px, time: f.time });
    this.changedMarks.add(f.coin);

    let trip = account.open.get(f.coin);
    // History starting mid-position: the position stated before the fill is taken as entered at its price.
    if (!trip && sign(start) !== 0) trip = this.openTrip(f, abs(start), sign(start), px, account, ZERO);
    if (!trip) {
      if (sign(end) !== 0) this.openTrip(f, abs(end), sign(end), px, account, fee).fills++;
      return;
    }
    this.changed.add(trip);
    trip.filled = true;
    trip.fills++;
    const before = abs(trip.position);
    const after = abs(end);
    if (sign(end) === sign(trip.position) && cmp(after, before) >= 0) {
      // Increases the position (or a zero-size fill).
      trip.entrySz = add(trip.entrySz, sub(after, before));
      trip.entryNtl = add(trip.entryNtl, mul(px, sub(after, before)));
      trip.fees = add(trip.fees, fee);
      if (cmp(after, trip.size) > 0) trip.size = after;
      trip.position = end;
      return;
    }
    // Reduces, closes or flips: the part up to flat closes; the rest (a flip) opens the next trip.
    const closing = sign(end) === sign(trip.position) ? sub(before, after) : before;
    // (A whole fill closing: its whole fee, the same value without a division.)
    const closingFee = sign(sz) === 0 || cmp(closing, sz) === 0 ? fee : mul(fee, div(closing, sz));
    trip.exitSz = add(trip.exitSz, closing);
    trip.exitNtl = add(trip.exitNtl, mul(px, closing));
    trip.pnl = add(trip.pnl, closedPnl);
    trip.fees = add(trip.fees, closingFee);
    trip.position = sign(end) === sign(trip.position) ? end : ZERO;
    if (sign(trip.position) !== 0) return;
    this.close(trip, account, f.time);
    if (sign(end) !== 0) this.openTrip(f, after, sign(end), px, account, sub(fee, closingFee)).fills++;
  }

  private openTrip(f: FillEvent, size: Ratio, side: -1 | 0 | 1, px: Ratio, account: Account, fee: Ratio): Trip {
    const notional = mul(size, px);
    const value = account.snapshotValue;
    const trip: Trip = {
      address: f.address,
      coin: f.coin,
      openedAt: f.time,
      // A batch holds every fill of a millisecond, so counting here numbers the trips of one millisecond fully.
      openSeq: this.openedIn(account, f.coin, f.time),
      closedAt: null,
      direction: side > 0 ? 'long' : 'short',
      size,
      position: side > 0 ? size : neg(size),
      pnl: ZERO,
      fees: fee,
      funding: ZERO,
      leverage: value && sign(value) > 0 ? dec(div(notional, value)) : null,
      fills: 0,
      entrySz: size,
      entryNtl: notional,
      entry: null,
      exitSz: ZERO,
      exitNtl: ZERO,
      filled: true,
      stored: false,
    };
    account.open.set(f.coin, trip);
    this.changed.add(trip);
    this.sumsAt(f.address, account, f.time);
    if (side > 0) {
      account.daySums.longs++;
      account.hourSums.longs++;
    } else {
      account.daySums.shorts++;
      account.hourSums.shorts++;
    }
    return trip;
  }

  /** The trip's number among those the account opened in `coin` at `time` (events come in time order). */
  private openedIn(account: Account, coin: string, time: number): number {
    const last = account.opened.get(coin);
    if (!last) account.opened.set(coin, { time, n: 0 });
    else if (last.time === time) return ++last.n;
    else {
      last.time = time;
      last.n = 0;
    }
    return 0;
  }

  private close(trip: Trip, account: Account, time: number): void {
    trip.closedAt = time;
    account.open.delete(trip.coin);
    const net = sign(add(sub(trip.pnl, trip.fees), trip.funding));
    this.sumsAt(trip.address, account, time);
    for (const s of [account.daySums, account.hourSums]) {
      s.trips++;
      if (net > 0) s.wins++;
      else if (net < 0) s.losses++;
    }
  }

  private funding(e: FundingEvent, account: Account): void {
    const usdc = ratio(e.usdc);
    account.cash = add(account.cash, usdc);
    this.sumsAt(e.address, account, e.time);
    account.daySums.funding = add(account.daySums.funding, usdc);
    account.hourSums.funding = add(account.hourSums.funding, usdc);
    const trip = account.open.get(e.coin);
    if (trip) {
      trip.funding = add(trip.funding, usdc);
      this.changed.add(trip);
    }
  }

  /** Snapshots, at `hour` (its close), every account with an event in the hour before. */
  private async snapshotHour(hour: number): Promise<void> {
    // Accounts last active earlier in an hour the batch starts inside of; any later activity is this batch's own.
    if (hour - HOUR_MS < this.range[0]) {
      const { rows } = await this.query<{ address: string }>(
        `SELECT address FROM analytics.account_state WHERE last_event >= $1 AND last_event < $2`,
        [hour - HOUR_MS, hour],
      );
      await this.loadAccounts(rows.map((r) => r.address));
    }
    const active = [...this.accounts].filter(([, a]) => a.lastEvent >= hour - HOUR_MS && a.lastEvent < hour);
    for (const [address, account] of active.sort(([a], [b]) => (a < b ? -1 : 1))) {
      let unrealized = ZERO;
      let positionValue = ZERO;
      const positions = [];
      for (const t of [...account.open.values()].sort((a, b) => (a.coin < b.coin ? -1 : 1))) {
        const entry = entryOf(t);
        const mark = this.marks.get(t.coin)?.px ?? entry.px;
        const upnl = mul(sub(mark, entry.px), t.position);
        unrealized = add(unrealized, upnl);
        positionValue = add(positionValue, mul(abs(t.position), mark));
        positions.push({
          coin: t.coin,
          szi: dec(t.position),
          entry_px: entry.text,
          mark_px: dec(mark),
          unrealized_pnl: dec(upnl),
        });
      }
      const value = add(account.cash, unrealized);
      account.snapshotValue = value;
      account.snapshotUnrealized = dec(unrealized);
      this.snapshots.push(
        copyRow([
          address,
          hour,
          dec(value),
          dec(account.cash),
          dec(positionValue),
          dec(unrealized),
          sign(value) > 0 ? dec(div(positionValue, value)) : null,
          positions.length,
          positions,
        ]),
      );
    }
  }

  /**
   * Sends the grouping of the batch's fills by day (daySumsStatement's), once: the caller of a batch of hours sends
   * it early, while Postgres would otherwise wait for the walk (else daySumsStatement groups them itself).
   */
  groupDays(): void {
    if (this.daysGrouped) return;
    this.daysGrouped = true;
    this.send(batchDaysStatements(this.range).map((st) => () => st));
  }

  /** Whether no row of the hour or day starting at `start` can be stored yet (statements.ts hourSumsStatement). */
  private fresh(start: number): boolean {
    return !this.derivedBefore || start >= this.range[0];
  }

  /** Writes what the batch changed (the checkpoint is the caller's, in the same transaction). */
  async write(): Promise<void> {
    // Quick to build and long to run first: Postgres writes them while the trips' COPY text is made.
    const statements: (() => Write | null)[] = [];
    const firstDay = Math.floor(this.range[0] / DAY_MS) * DAY_MS;
    statements.push(() =>
      daySumsStatement(
        this.daily,
        this.firstHours,
        { daysFresh: this.fresh(firstDay), totalsFresh: !this.derivedBefore },
        this.daysGrouped ? { early: true } : { range: this.range },
      ),
    );
    if (this.accounts.size) {
      statements.push(() => [
        `INSERT INTO analytics.account_state (address, cash, last_event, snapshot_value, snapshot_unrealized)
         SELECT * FROM unnest($1::text[], $2::numeric[], $3::int8[], $4::numeric[], $5::numeric[])
         ON CONFLICT (address) DO UPDATE SET cash = EXCLUDED.cash, last_event = EXCLUDED.last_event,
           snapshot_value = EXCLUDED.snapshot_value, snapshot_unrealized = EXCLUDED.snapshot_unrealized`,
        columns(
          [...this.accounts].map(([a, s]) => [
            a,
            dec(s.cash),
            s.lastEvent,
            s.snapshotValue === null ? null : dec(s.snapshotValue),
            s.snapshotUnrealized,
          ]),
          5,
        ),
      ]);
    }
    if (this.changedMarks.size) {
      const marks = [...this.changedMarks].map((coin) => {
        const m = this.marks.get(coin) as { px: Ratio; time: number };
        return [coin, dec(m.px), m.time];
      });
      statements.push(() => [
        `INSERT INTO analytics.marks (coin, px, time) SELECT * FROM unnest($1::text[], $2::numeric[], $3::int8[])
         ON CONFLICT (coin) DO UPDATE SET px = EXCLUDED.px, time = EXCLUDED.time`,
        columns(marks, 3),
      ]);
    }
    statements.push(...this.finalStatements());
    const trips = [...this.changed].filter((t) => t.filled);
    const funded = [...this.changed].filter((t) => !t.filled);
    if (funded.length) {
      statements.push(() => [
        `UPDATE analytics.round_trips t SET funding = u.funding
         FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::numeric[])
           AS u (address, coin, opened_at, open_seq, funding)
         WHERE t.address = u.address AND t.coin = u.coin AND t.opened_at = u.opened_at AND t.open_seq = u.open_seq`,
        columns(
          funded.map((t) => [t.address, t.coin, t.openedAt, t.openSeq, dec(t.funding)]),
          5,
        ),
      ]);
    }
    const stored = trips.filter((t) => t.stored);
    if (stored.length) statements.push(() => tripsStatement(stored));
    statements.push(...tripsCopies(trips.filter((t) => !t.stored)));
    this.send(statements);
    await this.writing;
  }

  /**
   * Ends the hour just walked (`range`, or the part of it the batch holds): sends its hourly sums, and what no later
   * event of the batch changes (closed trips, snapshots) once enough has gathered, and lets them go (a history batch
   * spans hours, and holding them all to its end cost more in garbage collection than writing them). Not awaited:
   * Postgres writes them while the batch walks on.
   */
  endHour(range: [number, number]): void {
    const hourly = this.hourly;
    this.hourly = new Map();
    const hour = Math.floor(range[0] / HOUR_MS) * HOUR_MS;
    const statements: (() => Write | null)[] = [() => hourSumsStatement(range, hourly, this.fresh(hour))];
    let closed = 0;
    for (const t of this.changed) if (t.closedAt !== null) closed++;
    if (closed + this.snapshots.length >= FLUSHED_ROWS) statements.push(...this.finalStatements());
    this.send(statements);
  }

  /** Waits for the writes sent so far (throws their error). */
  written(): Promise<void> {
    return this.writing;
  }

  /** Settles when every statement sent so far is handed to the connection (never rejects). */
  handedOver(): Promise<void> {
    return this.built.catch(() => {});
  }

  private finalStatements(): (() => Write | null)[] {
    const closed = [...this.changed].filter((t) => t.closedAt !== null);
    for (const t of closed) this.changed.delete(t);
    const snapshots = this.snapshots;
    this.snapshots = [];
    const statements: (() => Write | null)[] = [];
    const stored = closed.filter((t) => t.stored);
    if (stored.length) statements.push(() => tripsStatement(stored));
    statements.push(...tripsCopies(closed.filter((t) => !t.stored)));
    if (snapshots.length)
      statements.push(() => ({ into: `analytics.account_snapshots (${SNAPSHOT_COLUMNS})`, rows: snapshots }));
    return statements;
  }

  /**
   * Sends `statements` on the batch's connection (its transaction), each as soon as it is built: its queue runs them
   * in order (and after those sent before), Postgres writing while Node builds the next one and walks on (a turn of
   * the event loop after each, so that the connection starts on it: building an hour's trips and snapshots took
   * seconds, Postgres idle). `writing` settles when all are done.
   */
  private send(statements: (() => Write | null)[]): void {
    const before = { built: this.built, writing: this.writing };
    const sent: Promise<unknown>[] = [before.writing];
    this.built = (async () => {
      await before.built;
      for (const build of statements) {
        const w = build();
        if (!w) continue;
        if (Array.isArray(w)) sent.push(this.query(...w));
        else sent.push(this.c.copy(w.into, Buffer.from(w.rows.join('')), this.timeoutMs));
        await yieldToLoop();
      }
    })();
    this.writing = this.built.then(() => Promise.all(sent)).then(() => undefined);
    // Handled here: a failure is told by whoever waits for `written()` (or `write`), not as an unhandled rejection.
    this.built.catch(() => {});
    this.writing.catch(() => {});
  }
}

/** The trip's VWAP entry price (worked out again only when its entry figures changed), and its text. */
function entryOf(t: Trip): { px: Ratio; text: string } {
  const known = t.entry;
  if (known && known.ntl === t.entryNtl && known.sz === t.entrySz) return known;
  const px = div(t.entryNtl, t.entrySz);
  t.entry = { sz: t.entrySz, ntl: t.entryNtl, px, text: dec(px) };
  return t.entry;
}

/** A trip's row of round_trips, in TRIP_NAMES' order. */
function tripRow(t: Trip): unknown[] {
  const entry = entryOf(t);
  return [
    t.address,
    t.coin,
    t.openedAt,
    t.openSeq,
    t.closedAt,
    t.direction,
    dec(t.size),
    dec(t.position),
    entry.text,
    sign(t.exitSz) === 0 ? null : dec(div(t.exitNtl, t.exitSz)),
    // entry × size: the entry notional itself when the size never grew back after a reduction.
    dec(cmp(t.size, t.entrySz) === 0 ? t.entryNtl : mul(entry.px, t.size)),
    dec(t.pnl),
    dec(t.fees),
    dec(t.funding),
    t.leverage,
    t.fills,
    dec(t.entrySz),
    dec(t.entryNtl),
    dec(t.exitSz),
    dec(t.exitNtl),
    t.closedAt === null ? 'open' : 'closed',
  ];
}

/** Trips read back, written whole over their stored rows: an upsert from one JSON parameter. */
function tripsStatement(trips: Trip[]): Statement {
  return [
    `INSERT INTO analytics.round_trips (${TRIP_COLUMNS})
     SELECT ${TRIP_COLUMNS} FROM json_populate_recordset(NULL::analytics.round_trips, $1::json) ${TRIP_UPSERT}`,
    [
      JSON.stringify(
        trips.map((t) => {
          const row = tripRow(t);
          return Object.fromEntries(TRIP_NAMES.map((name, i) => [name, row[i]]));
        }),
      ),
    ],
  ];
}

/** Trips a COPY of the batch's writes holds: Postgres copies one while the next one's text is made. */
const TRIPS_PER_COPY = 25_000;

/**
 * Trips the batch opened, none of them stored yet (its checkpoint is before them): plain COPYs, without an upsert's
 * speculative insertion for each of the ~10^5 trips a mainnet hour opens.
 */
function tripsCopies(trips: Trip[]): (() => Write)[] {
  const copies: (() => Write)[] = [];
  for (let at = 0; at < trips.length; at += TRIPS_PER_COPY) {
    const part = trips.slice(at, at + TRIPS_PER_COPY);
    copies.push(() => ({
      into: `analytics.round_trips (${TRIP_COLUMNS})`,
      rows: part.map((t) => copyRow(tripRow(t))),
    }));
  }
  return copies;
}
