// The HIP-4 registry as stored by ingest: venues (deployer, fee scale, sub-deployer delegations), questions and
// outcomes with their settlement, and the outcome index live filters need (outcome → question, venue).
import type pg from 'pg';
import { trimDecimal } from '../../../platform/decimal.ts';

/** The venue name oracle-emitted (legacy) markets report where a venue name is shown (questions, providers). */
export const ORACLE_VENUE = 'oracle';

/** A stored venue ('' for oracle-emitted markets) as the service names it. */
export const venueName = (venue: string): string => venue || ORACLE_VENUE;

/** A venue filter as callers give it (a name, or `oracle`) → the stored venue text. */
export const storedVenue = (venue: string): string => (venue === ORACLE_VENUE ? '' : venue);

export interface QuestionRow {
  question_id: number;
  name: string;
  description: string;
  fallback_outcome: number;
  named_outcomes: number[];
  settled_named_outcomes: number[];
  /** Epoch ms of the last registry change of the question. */
  updated_at: number;
  /** '' for oracle-emitted (legacy) questions. */
  venue: string;
  deployer: string;
}

export interface SideSpec {
  name: string;
}

/** An outcome with its question, venue fee scale and trading totals (settlement fills excluded). */
export interface OutcomeRow {
  outcome_id: number;
  name: string;
  description: string;
  side_specs: SideSpec[];
  question_id: number | null;
  quote_token: string;
  block_time: number;
  venue: string;
  deployer: string;
  settled: boolean;
  settle_fraction: string | null;
  settled_at: number | null;
  question_name: string | null;
  question_description: string | null;
  /** The venue's fee scale; null for oracle-emitted markets. */
  fee_scale: string | null;
  total_fills: number;
  total_volume: string;
  unique_users: number;
}

export interface VenueRow {
  venue: string;
  deployer: string;
  fee_scale: string;
  /** [action, [addresses]] pairs. */
  sub_deployers: [string, string[]][];
  updated_at: number;
}

export interface Paging {
  limit: number;
  offset: number;
  /** Keyset: only rows after this id (in the list's order), a page's next cursor. */
  afterId?: number;
}

export interface OutcomeFilter {
  outcomeId?: number;
  questionId?: number;
  /** The description's `class:` value (`priceBucket`, `priceBinary`, ...). */
  class?: string;
  /** The description's `underlying:` value. */
  underlying?: string;
  venue?: string;
}

/** An outcome's coin on one side: `#<10·outcome + side>`. */
export const sideCoin = (outcomeId: number, side: number): string => `#${10 * outcomeId + side}`;

/** An outcome side's coin as callers may write it: `#2901` or `2901` (the pattern of every input that takes one). */
export const SIDE_COIN_PATTERN = '^#?\\d{1,15}$';
const SIDE_COIN = new RegExp(SIDE_COIN_PATTERN);

/** `#2901` or `2901` → outcome 290, side 1; null when it is no outcome coin. */
export function parseSideCoin(coin: string): { outcomeId: number; side: number } | null {
  if (!SIDE_COIN.test(coin)) return null;
  const n = Number(coin.replace('#', ''));
  return { outcomeId: Math.floor(n / 10), side: n % 10 };
}

/** The pipe-delimited `key:value` text of a description as a record (`class:priceBucket|underlying:BTC|...`). */
export function descriptionFields(description: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of description.split('|')) {
    const i = part.indexOf(':');
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  return out;
}

const QUESTION_COLUMNS = `question_id, name, description, fallback_outcome, named_outcomes, settled_named_outcomes,
  updated_at, venue, deployer`;

export async function questions(
  pool: pg.Pool,
  filter: { questionId?: number; venue?: string },
  page: Paging,
): Promise<QuestionRow[]> {
  const { rows } = await pool.query<QuestionRow>(
    `SELECT ${QUESTION_COLUMNS} FROM hip4.questions
     WHERE ($1::int IS NULL OR question_id = $1) AND ($2::text IS NULL OR venue = $2)
       AND ($5::int IS NULL OR question_id > $5)
     ORDER BY question_id LIMIT $3 OFFSET $4`,
    [
      filter.questionId ?? null,
      filter.venue === undefined ? null : storedVenue(filter.venue),
      page.limit,
      page.offset,
      page.afterId ?? null,
    ],
  );
  return rows;
}

export async function questionsById(pool: pg.Pool, ids: readonly number[]): Promise<(QuestionRow | null)[]> {
  const { rows } = await pool.query<QuestionRow>(
    `SELECT ${QUESTION_COLUMNS} FROM hip4.questions WHERE question_id = ANY($1::int[])`,
    [ids],
  );
  const byId = new Map(rows.map((r) => [r.question_id, r]));
  return ids.map((id) => byId.get(id) ?? null);
}

/**
 * Outcomes by id ascending with their question's name and description, the venue's fee scale and their totals
 * (computed for the page's outcomes only, from the (outcome_id, time) index).
 */
export async function outcomes(pool: pg.Pool, filter: OutcomeFilter, page: Paging): Promise<OutcomeRow[]> {
  const { rows } = await pool.query<OutcomeRow>(
    `WITH page AS (
       SELECT o.* FROM hip4.outcomes o
       WHERE ($1::int IS NULL OR o.outcome_id = $1) AND ($2::int IS NULL OR o.question_id = $2)
         AND ($3::text IS NULL OR $3 = ANY(string_to_array(o.description, '|')))
         AND ($4::text IS NULL OR $4 = ANY(string_to_array(o.description, '|')))
         AND ($5::text IS NULL OR o.venue = $5) AND ($8::int IS NULL OR o.outcome_id > $8)
       ORDER BY o.outcome_id LIMIT $6 OFFSET $7
     )
     SELECT p.outcome_id, p.name, p.description, p.side_specs, p.question_id, p.quote_token, p.block_time, p.venue,
       p.deployer, p.settled, p.settle_fraction::text AS settle_fraction, p.settled_at,
       q.name AS question_name, q.description AS question_description, v.fee_scale::text AS fee_scale,
       coalesce(t.fills, 0)::int AS total_fills, coalesce(t.volume, 0)::text AS total_volume,
       coalesce(t.users, 0)::int AS unique_users
     FROM page p
     LEFT JOIN hip4.questions q ON q.question_id = p.question_id
     LEFT JOIN hip4.venues v ON v.venue = p.venue AND p.venue <> ''
     LEFT JOIN LATERAL (
       SELECT count(*) AS fills, sum(f.px * f.sz) FILTER (WHERE f.crossed) AS volume,
         count(DISTINCT f.address) AS users
       FROM hip4.fills f WHERE f.outcome_id = p.outcome_id AND NOT f.is_settlement
     ) t ON true
     ORDER BY p.outcome_id`,
    [
      filter.outcomeId ?? null,
      filter.questionId ?? null,
      filter.class === undefined ? null : `class:${filter.class}`,
      filter.underlying === undefined ? null : `underlying:${filter.underlying}`,
      filter.venue === undefined ? null : storedVenue(filter.venue),
      page.limit,
      page.offset,
      page.afterId ?? null,
    ],
  );
  // The exchange's decimal form (trailing zeros trimmed), as the providers' volume.
  return rows.map((r) => ({ ...r, total_volume: trimDecimal(r.total_volume) }));
}

export async function venues(pool: pg.Pool): Promise<VenueRow[]> {
  const { rows } = await pool.query<VenueRow>(
    'SELECT venue, deployer, fee_scale::text AS fee_scale, sub_deployers, updated_at FROM hip4.venues ORDER BY venue',
  );
  return rows;
}

/** Outcome → its question and venue, for the live filters (a fill names only its coin). */
export interface OutcomeIndexEntry {
  questionId: number | null;
  venue: string;
}

export async function outcomeIndex(pool: pg.Pool): Promise<Map<number, OutcomeIndexEntry>> {
  const { rows } = await pool.query<{ outcome_id: number; question_id: number | null; venue: string }>(
    'SELECT outcome_id, question_id, venue FROM hip4.outcomes',
  );
  return new Map(rows.map((r) => [r.outcome_id, { questionId: r.question_id, venue: r.venue }]));
}
