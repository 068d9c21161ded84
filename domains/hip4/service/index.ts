// The hip4 domain service, the one façade of this folder: the HIP-4 registry (venues and their deployers,
// questions, outcomes and settlements), the outcome fills with statistics per venue and per time bucket, a user's
// outcome positions, and the live fill and registry streams, with the defaults, caps and input rules of each query.
// The hip4 subgraph, compat-rest's /hip4 routes and /ws channel and the MCP tools call only this class; the pool is
// its own. It knows nothing of GraphQL or HTTP.
import type pg from 'pg';
import type { EventBus } from '../../../events/bus.ts';
import type { InputOf } from '../../../kit/input.ts';
import { type Page, pageOf } from '../../../kit/page.ts';
import { FieldError, orderedWindow } from '../../../platform/fields.ts';
import type { TextRow } from '../../../platform/json-text.ts';
import {
  type AnalyticsBucket,
  analytics,
  anyFill,
  eachFillTextRow,
  FILL_COLUMN,
  fills,
  type Hip4FillKey,
  type Hip4FillWithMarket,
  type Hip4Position,
  lastPrices,
  type ProviderStats,
  positions,
  providers,
} from './fills.ts';
import { type ANALYTICS, type DEPLOYERS, type FILLS, OUTCOMES, type PROVIDERS, type QUESTIONS } from './inputs.ts';
import { ANALYTICS_DEFAULT_WINDOW_MS, DEPLOYERS_REFRESH_MS, MAX_HIP4_OFFSET, MAX_OUTCOME_ID } from './limits.ts';
import { ProviderTotals } from './provider-totals.ts';
import {
  type OutcomeIndexEntry,
  type OutcomeRow,
  outcomeIndex,
  outcomes,
  type Paging,
  type QuestionRow,
  questions,
  questionsById,
  storedVenue,
  type VenueRow,
  venues,
} from './registry.ts';
import { Hip4Streams } from './streams.ts';

/** A page's bounds as a definition read them (kit/input.ts): limit and offset bounded and defaulted. */
export interface PageInput {
  limit: number;
  offset: number;
  /** A page's `nextCursor`: the next page starts after it (not with an offset; the definition refuses both). */
  cursor?: string;
}

/** What each list takes: its input definition's, checked (hip4/service/inputs.ts). */
export type FillsInput = InputOf<typeof FILLS>;
export type AnalyticsInput = InputOf<typeof ANALYTICS>;

export interface AnalyticsAnswer extends Page<AnalyticsBucket> {
  /** `live` once any HIP-4 fill is held, else `not_yet_live`. */
  status: 'live' | 'not_yet_live';
  /** Whether the rows are split by coin (several coins or an outcome filter). */
  byCoin: boolean;
}

/** A deployer registry row: a venue and the deployer running it. */
export type DeployerRow = VenueRow;

export interface Hip4ServiceOptions {
  pool: pg.Pool;
  bus: EventBus;
  now?: () => number;
}

/** A page of `limit` rows from `offset` (a definition bounded both and refused an offset beside a cursor). */
const page = ({ limit, offset }: PageInput): Paging => ({ limit, offset });

/** The paging of a list whose cursor is an offset (a ranking or a bucket list, which has no stable key). */
function offsetPage(input: PageInput): Paging {
  const paging = page(input);
  if (input.cursor === undefined) return paging;
  if (!/^\d{1,9}$/.test(input.cursor) || Number(input.cursor) > MAX_HIP4_OFFSET) {
    throw new FieldError(`cursor: must be the next cursor of a page (an offset up to ${MAX_HIP4_OFFSET})`);
  }
  return { ...paging, offset: Number(input.cursor) };
}

/** The paging of a list by id ascending (questions, outcomes), its cursor the last id of a page. */
function idPage(input: PageInput): Paging {
  const paging = page(input);
  if (input.cursor === undefined) return paging;
  if (!/^\d{1,10}$/.test(input.cursor) || Number(input.cursor) > MAX_OUTCOME_ID) {
    throw new FieldError('cursor: must be the next cursor of a page (the last id it held)');
  }
  return { ...paging, afterId: Number(input.cursor) };
}

const FILL_CURSOR = /^(\d{1,16}):(\d{1,20}):(0x[0-9a-f]{40}):([AB])$/;

/** A fill list cursor, `<time>:<tid>:<address>:<side>` (the key of a page's last fill). */
export const hip4FillCursor = (k: Hip4FillKey): string => `${k.time}:${k.tid}:${k.address}:${k.side}`;

function parseFillCursor(cursor: string): Hip4FillKey {
  const m = FILL_CURSOR.exec(cursor);
  if (!m) throw new FieldError('cursor: must be the next cursor of a page ("<time>:<tid>:<address>:<side>")');
  return { time: m[1] as string, tid: m[2] as string, address: m[3] as string, side: m[4] as string };
}

/**
 * `rows` read with one more than `limit` (the extra row only says that more follow) as a page; `cursorOf` makes the
 * next cursor from the page's last row.
 */
/** One more row than the page holds: whether another page follows. */
const plusOne = (p: Paging): Paging => ({ ...p, limit: p.limit + 1 });

/** An outcome coin as stored (`#2901`) from `#2901` or `2901` (a definition checked its form). */
const storedCoin = (coin: string): string => (coin.startsWith('#') ? coin : `#${coin}`);

export class Hip4Service {
  readonly streams: Hip4Streams;
  private readonly pool: pg.Pool;
  private readonly now: () => number;
  private index = new Map<number, OutcomeIndexEntry>();
  private deployerCache: { at: number; rows: Promise<VenueRow[]> } | null = null;
  /** Statistics per venue over all fills, kept live (the providers answer without a window). */
  private totals: ProviderTotals;
  private reloading: ProviderTotals | undefined;
  private readonly unsubscribe: (() => void)[];

  constructor(opts: Hip4ServiceOptions) {
    this.pool = opts.pool;
    this.now = opts.now ?? Date.now;
    const outcome = (id: number) => this.index.get(id);
    this.streams = new Hip4Streams(opts.bus, outcome);
    this.totals = new ProviderTotals(outcome);
    // Subscribed before any stream is: a new outcome is in the index before a subscriber sees its first fill.
    this.unsubscribe = [
      opts.bus.subscribe('hip4Registry', (events) => {
        for (const e of events) {
          if (e.kind !== 'OutcomeRegistered') continue;
          const d = e.data as { outcome_id: number; question_id?: number | null; venue?: string };
          this.index.set(d.outcome_id, { questionId: d.question_id ?? null, venue: d.venue ?? '' });
          this.totals.registered(d.outcome_id);
        }
      }),
      opts.bus.subscribe('hip4Fills', (fills) => {
        this.totals.add(fills);
        this.reloading?.add(fills);
      }),
      // Fills and registrations loaded without being published (a backfill): read the index and totals again.
      opts.bus.subscribe('gaps', (gaps) => {
        if (!gaps.some((g) => g.topics.includes('hip4Fills') || g.topics.includes('hip4Registry'))) return;
        this.reload().catch((err) =>
          console.error(`hip4: after a gap in the events: ${err instanceof Error ? err.message : String(err)}`),
        );
      }),
    ];
  }

  async start(): Promise<void> {
    await this.loadIndex();
    await this.totals.load(this.pool);
  }

  private async loadIndex(): Promise<void> {
    const loaded = await outcomeIndex(this.pool);
    // Registrations seen live while loading are newer than what was read.
    for (const [id, entry] of this.index) loaded.set(id, entry);
    this.index = loaded;
  }

  /** New totals are loaded beside the served ones (both counting published fills), then take their place. */
  private async reload(): Promise<void> {
    if (this.reloading) return;
    const fresh = new ProviderTotals((id) => this.index.get(id));
    this.reloading = fresh;
    try {
      await this.loadIndex();
      await fresh.load(this.pool);
      this.totals = fresh;
    } finally {
      this.reloading = undefined;
    }
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
  }

  // ---- registry ----

  async questions(input: InputOf<typeof QUESTIONS>): Promise<QuestionRow[]> {
    return (await this.questionsPage(input)).rows;
  }

  /** Questions by id ascending, paged (the cursor: the last id of a page). */
  async questionsPage(input: InputOf<typeof QUESTIONS>): Promise<Page<QuestionRow>> {
    const paging = idPage(input);
    const rows = await questions(this.pool, { questionId: input.questionId, venue: input.venue }, plusOne(paging));
    return pageOf(rows, paging.limit, (q) => String(q.question_id));
  }

  /** Questions by id, in the order asked, null where unknown (the subgraph's batch loader). */
  questionsById(ids: readonly number[]): Promise<(QuestionRow | null)[]> {
    return questionsById(this.pool, ids);
  }

  async question(questionId: number): Promise<QuestionRow | null> {
    return (await this.questionsById([questionId]))[0] ?? null;
  }

  async outcomes(input: InputOf<typeof OUTCOMES>): Promise<OutcomeRow[]> {
    return (await this.outcomesPage(input)).rows;
  }

  /** Outcomes by id ascending, paged (the cursor: the last id of a page). */
  async outcomesPage(input: InputOf<typeof OUTCOMES>): Promise<Page<OutcomeRow>> {
    const paging = idPage(input);
    const { outcomeId, questionId, class: klass, underlying, venue } = input;
    const rows = await outcomes(this.pool, { outcomeId, questionId, class: klass, underlying, venue }, plusOne(paging));
    return pageOf(rows, paging.limit, (o) => String(o.outcome_id));
  }

  async outcome(outcomeId: number): Promise<OutcomeRow | null> {
    return (await this.outcomes(OUTCOMES.parse({ outcomeId, limit: 1 })))[0] ?? null;
  }

  /** Every venue with its deployer, fee scale and delegations, as read at most DEPLOYERS_REFRESH_MS ago. */
  venues(): Promise<VenueRow[]> {
    const now = this.now();
    if (!this.deployerCache || now - this.deployerCache.at >= DEPLOYERS_REFRESH_MS) {
      const rows = venues(this.pool);
      this.deployerCache = { at: now, rows };
      // A failed read is not kept: the next call reads again.
      rows.catch(() => {
        if (this.deployerCache?.rows === rows) this.deployerCache = null;
      });
    }
    return this.deployerCache.rows;
  }

  async venue(name: string): Promise<VenueRow | null> {
    return (await this.venues()).find((v) => v.venue === storedVenue(name)) ?? null;
  }

  async deployers(input: InputOf<typeof DEPLOYERS>): Promise<DeployerRow[]> {
    return (await this.deployersPage(input)).rows;
  }

  /** The deployer registry: venues by name, optionally one venue's, paged (the cursor: an offset). */
  async deployersPage(input: InputOf<typeof DEPLOYERS>): Promise<Page<DeployerRow>> {
    const { limit, offset } = offsetPage(input);
    const all = await this.venues();
    const rows = input.venue === undefined ? all : all.filter((v) => v.venue === input.venue);
    return pageOf(rows.slice(offset, offset + limit + 1), limit, (_, i) => String(offset + i + 1));
  }

  // ---- fills and statistics ----

  /** A page of fills, newest first (the cursor: the key of a page's last fill). */
  async fillsPage(input: FillsInput): Promise<Page<Hip4FillWithMarket>> {
    const { filter, paging } = this.fillsQuery(input);
    const rows = await fills(this.pool, filter, plusOne(paging));
    return pageOf(rows, paging.limit, (f) =>
      hip4FillCursor({ time: String(f.time), tid: String(f.tid), address: f.address, side: f.side }),
    );
  }

  /**
   * The same page as Postgres's text, row by row (columns at FILL_COLUMN): for an answer written as JSON text.
   * Resolves to whether more follow and the next cursor.
   */
  async eachFillTextRow(
    input: FillsInput,
    onRow: (row: TextRow) => void,
  ): Promise<Omit<Page<never>, 'rows' | 'cursors'>> {
    const { filter, paging } = this.fillsQuery(input);
    let n = 0;
    let last: TextRow | undefined;
    await eachFillTextRow(this.pool, filter, plusOne(paging), (row) => {
      if (++n > paging.limit) return;
      last = row;
      onRow(row);
    });
    const C = FILL_COLUMN;
    const key = (r: TextRow) =>
      hip4FillCursor({
        time: r[C.time] as string,
        tid: r[C.tid] as string,
        address: r[C.address] as string,
        side: r[C.side] as string,
      });
    return { hasMore: n > paging.limit, nextCursor: n > paging.limit && last ? key(last) : null };
  }

  /** The fill list's filter and page from its checked input (FILLS): the stored coin, the page after a cursor. */
  private fillsQuery(input: FillsInput) {
    return {
      filter: {
        user: input.user,
        coin: input.coin === undefined ? undefined : storedCoin(input.coin),
        outcomeId: input.outcomeId,
        startTime: input.startTime,
        endTime: input.endTime,
      },
      paging: {
        ...page(input),
        after: input.cursor === undefined ? undefined : parseFillCursor(input.cursor),
      },
    };
  }

  /**
   * Statistics per venue over the inclusive window, by traded volume descending; settlement fills excluded. Without
   * a window, the live totals answer (no scan of the fill history).
   */
  async providers(input: InputOf<typeof PROVIDERS>): Promise<ProviderStats[]> {
    return (await this.providersPage(input)).rows;
  }

  /** providers, paged (the cursor: an offset; the ranking moves with every fill). */
  async providersPage(input: InputOf<typeof PROVIDERS>): Promise<Page<ProviderStats>> {
    const { venue } = input;
    const { limit, offset } = offsetPage(input);
    const rows =
      input.startTime === undefined && input.endTime === undefined
        ? this.totals.rows(venue).slice(offset, offset + limit + 1)
        : await providers(
            this.pool,
            { venue, startTime: input.startTime, endTime: input.endTime },
            { limit: limit + 1, offset },
          );
    return pageOf(rows, limit, (_, i) => String(offset + i + 1));
  }

  /**
   * Fill statistics per time bucket aligned to the interval (UTC), oldest first; rows split by coin when several
   * coins or an outcome are asked for. At most MAX_ANALYTICS_BUCKETS rows.
   */
  async analytics(input: AnalyticsInput): Promise<AnalyticsAnswer> {
    const { interval, outcomeId } = input;
    const coins = input.coins === undefined ? undefined : [...new Set(input.coins.map(storedCoin))];
    const endTime = input.endTime ?? this.now();
    const startTime = input.startTime ?? Math.max(0, endTime - ANALYTICS_DEFAULT_WINDOW_MS);
    // The definition ordered a window given whole; an end of now must not precede a given start either.
    if (input.endTime === undefined) orderedWindow('start', startTime, endTime, 'end');
    const byCoin = (coins?.length ?? 0) > 1 || outcomeId !== undefined;
    const paging = offsetPage(input);
    const [rows, live] = await Promise.all([
      analytics(this.pool, { interval, coins, outcomeId, startTime, endTime, byCoin }, plusOne(paging)),
      anyFill(this.pool),
    ]);
    const listed = pageOf(rows, paging.limit, (_, i) => String(paging.offset + i + 1));
    return { status: live ? 'live' : 'not_yet_live', byCoin, ...listed };
  }

  /** The last traded price of each outcome coin that has traded (settlement fills excluded). */
  lastPrices(coins: readonly string[]): Promise<Map<string, string>> {
    return lastPrices(this.pool, coins);
  }

  /** A user's outcome sides held (net of its fills, settlements included), by coin. */
  positions(user: string): Promise<Hip4Position[]> {
    return positions(this.pool, user.toLowerCase());
  }
}
