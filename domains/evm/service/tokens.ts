// Tokens and their holders: the holders page of `/<chain>/testnet/tokens/{address}/holders` (balance descending,
// the `token_holders_balance` index order) with each holder's share of all holdings. The sum of the holdings
// changes only when a transfer mints or burns (ingest keeps no balance for the zero and system addresses), so it
// is cached per token and dropped on such a transfer only: a page at any depth costs one index range read.
import type pg from 'pg';
import { eachTextRow } from '../../../db/pool.ts';
import { mintsOrBurns, type TokenTransferRow } from '../../../db/rows/evm.ts';
import { type Page, pageOf } from '../../../kit/page.ts';
import { FieldError } from '../../../platform/fields.ts';
import { jsonString, type TextRow } from '../../../platform/json-text.ts';
import { HOLDER_CURSOR } from './inputs.ts';
import { type PageQuery, pageClause, sqlParams } from './paging.ts';

export interface EvmToken {
  address: string;
  symbol: string;
  decimals: number;
  standard: 'erc20' | 'erc721' | 'erc1155';
}

/** A token holder (spec §2.3): `balance` in whole tokens (ERC-20) or the count of tokens held (ERC-721/1155). */
export interface TokenHolder {
  address: string;
  balance_raw: string;
  balance: number;
  /** The fraction of all holdings held, 0 to 1. */
  share: number;
}

/** A page of holders, each one's cursor its keyset (`"<balance_raw>:<address>"`). */
export interface HoldersPage extends Page<TokenHolder> {
  /** The sum of every holder's raw balance. */
  totalRaw: string;
}

export async function tokensByAddress(pool: pg.Pool, addresses: readonly string[]): Promise<EvmToken[]> {
  const { rows } = await pool.query<EvmToken>(
    'SELECT address, symbol, decimals, standard FROM evm.tokens WHERE address = ANY($1::text[])',
    [addresses],
  );
  return rows;
}

/** Raw units → a JSON number of whole tokens (a float: exact digits stay in `balance_raw`). */
export function wholeTokens(raw: bigint, decimals: number): number {
  if (decimals === 0) return Number(raw);
  const unit = 10n ** BigInt(decimals);
  return Number(raw / unit) + Number(raw % unit) / Number(unit);
}

/**
 * wholeTokens of a raw balance as Postgres prints it, without a bigint: the whole and fractional digits as numbers
 * are what `raw / unit` and `raw % unit` convert to (both conversions round to the nearest double), and `1e<d>` is
 * `Number(unit)`, so the value is the same double. `unit` is `Number(\`1e${decimals}\`)`; digits only.
 */
export function wholeTokensOfText(raw: string, decimals: number, unit: number): number {
  if (decimals === 0) return Number(raw);
  const cut = raw.length - decimals;
  return cut <= 0 ? Number(raw) / unit : Number(raw.slice(0, cut)) + Number(raw.slice(cut)) / unit;
}

/** `part / whole` as a float with 12 significant digits of the ratio (both may exceed 2^53). */
export function shareOf(part: bigint, whole: bigint): number {
  if (whole <= 0n) return 0;
  return Number((part * 10n ** 12n) / whole) / 1e12;
}

export class HolderTotals {
  private readonly totals = new Map<string, Promise<bigint>>();

  constructor(private readonly pool: pg.Pool) {}

  /** Drops the totals of tokens a batch of transfers minted or burned. */
  onTransfers(rows: readonly TokenTransferRow[]): void {
    for (const r of rows) if (mintsOrBurns(r.from_addr) || mintsOrBurns(r.to_addr)) this.totals.delete(r.token);
  }

  /** Drops every total: transfers were loaded without being published (a backfill, BusGap). */
  clear(): void {
    this.totals.clear();
  }

  total(token: string): Promise<bigint> {
    let total = this.totals.get(token);
    if (!total) {
      total = this.pool
        .query<{ total: string }>(
          'SELECT coalesce(sum(balance_raw), 0)::text AS total FROM evm.token_holders WHERE token = $1 AND balance_raw > 0',
          [token],
        )
        .then((r) => BigInt(r.rows[0]?.total ?? '0'));
      this.totals.set(token, total);
      // A failed read is not kept.
      total.catch(() => this.totals.delete(token));
    }
    return total;
  }
}

/** `"<balance_raw>:<address>"` of a page's last holder: the next page starts after it. */
export function holderCursor(h: { balance_raw: string; address: string }): string {
  return `${h.balance_raw}:${h.address}`;
}

/** A cursor TOKEN_HOLDERS has checked, as its balance and address. */
function parseHolderCursor(cursor: string): { balance: string; address: string } {
  const [, balance, address] = HOLDER_CURSOR.exec(cursor) as RegExpExecArray;
  return { balance: balance as string, address: address as string };
}

export interface HoldersQuery extends PageQuery {
  /** Keyset paging (next_cursor of the previous page): any depth at the cost of the first page; offset must be 0. */
  cursor?: string;
}

/** The page's statement: address and balance_raw (as text) of each holder, `limit + 1` rows (see tokenHolders). */
function holdersStatement(token: string, q: HoldersQuery): { text: string; values: unknown[] } {
  const { params, param } = sqlParams();
  // Ordered by the numeric column `h.balance_raw`: the text alias of the same name would sort "99" above "100".
  const cols = 'SELECT h.address, h.balance_raw::text AS balance_raw FROM evm.token_holders h';
  const t = param(token);
  let sql: string;
  if (q.cursor === undefined) {
    sql = `${cols} WHERE h.token = ${t} AND h.balance_raw > 0 ORDER BY h.balance_raw DESC, h.address ${pageClause(q, param)}`;
  } else {
    if (q.offset !== 0) throw new FieldError('offset: must be 0 (or absent) with cursor');
    const c = parseHolderCursor(q.cursor);
    const b = param(c.balance);
    const n = param(q.limit + 1);
    sql = `(${cols} WHERE h.token = ${t} AND h.balance_raw = ${b}::numeric AND h.address > ${param(c.address)}
              ORDER BY h.address LIMIT ${n})
           UNION ALL
           (${cols} WHERE h.token = ${t} AND h.balance_raw < ${b}::numeric AND h.balance_raw > 0
              ORDER BY h.balance_raw DESC, h.address LIMIT ${n})
           LIMIT ${n}`;
  }
  return { text: sql, values: params };
}

/** A holder from its address and raw balance, `decimals` scaling `balance`, `total` the sum of all holdings. */
function holderOf(address: string, balanceRaw: string, decimals: number, total: bigint): TokenHolder {
  const raw = BigInt(balanceRaw);
  return { address, balance_raw: balanceRaw, balance: wholeTokens(raw, decimals), share: shareOf(raw, total) };
}

/**
 * Holders with a positive balance, largest first, then by address. `decimals` scales `balance`. With `cursor`, the
 * page after that holder: the rest of its balance (by address), then the lower balances, each one index range.
 */
export async function tokenHolders(
  pool: pg.Pool,
  totals: HolderTotals,
  token: string,
  decimals: number,
  query: HoldersQuery,
): Promise<HoldersPage> {
  const q = query;
  const [{ rows }, total] = await Promise.all([
    pool.query<{ address: string; balance_raw: string }>(holdersStatement(token, q)),
    totals.total(token),
  ]);
  const holders = rows.map((r) => holderOf(r.address, r.balance_raw, decimals, total));
  return { ...pageOf(holders, q.limit, holderCursor), totalRaw: total.toString() };
}

const DIGITS = /^[0-9]+$/;

/**
 * shareOf a raw balance as Postgres prints it, the same double, mostly without a bigint: `raw * 1e12 / whole` in
 * doubles is within 5e-4 of the exact quotient (each of the four steps rounds by at most 2^-53 of a value under
 * 1e12), so its floor is the exact integer part unless it lies within 0.01 of an integer; then the bigint way.
 */
export function shareOfText(raw: string, whole: bigint, wholeNumber: number): number {
  if (whole <= 0n) return 0;
  const x = (Number(raw) * 1e12) / wholeNumber;
  const floor = Math.floor(x);
  if (x - floor > 0.01 && floor + 1 - x > 0.01) return floor / 1e12;
  return shareOf(BigInt(raw), whole);
}

/** A JSON number as JSON.stringify writes it (a non-finite one as null). */
const numberJson = (n: number) => (Number.isFinite(n) ? String(n) : 'null');

/**
 * The same page as tokenHolders, each holder handed to `onHolder` as its JSON (the keys and values of TokenHolder's
 * JSON) as its row comes off the wire: no row object, no page kept, for an answer written as JSON text. Rows read
 * before the sum of the holdings is known wait for it, in order. Resolves to the page without its rows.
 */
export async function eachHolderJson(
  pool: pg.Pool,
  totals: HolderTotals,
  token: string,
  decimals: number,
  q: HoldersQuery,
  onHolder: (json: string) => void,
): Promise<Omit<HoldersPage, 'rows' | 'cursors'>> {
  const statement = holdersStatement(token, q);
  let total: bigint | undefined;
  const waiting: TextRow[] = [];
  const unit = Number(`1e${decimals}`);
  // The keys and values of holderOf's JSON, from the digits (anything but digits goes through BigInt, which
  // refuses what it cannot read, as holderOf does).
  const write = (r: TextRow) => {
    const raw = r[1] as string;
    const balance = DIGITS.test(raw) ? wholeTokensOfText(raw, decimals, unit) : wholeTokens(BigInt(raw), decimals);
    onHolder(
      `{"address":${jsonString(r[0] as string)},"balance_raw":"${raw}","balance":${numberJson(balance)},` +
        `"share":${numberJson(shareOfText(raw, total as bigint, totalNumber))}}`,
    );
  };
  const flush = () => {
    for (const r of waiting) write(r);
    waiting.length = 0;
  };
  let n = 0;
  let last: TextRow | undefined;
  let totalNumber = 0;
  const totalRead = totals.total(token).then((t) => {
    total = t;
    totalNumber = Number(t);
  });
  const rowsRead = eachTextRow(pool, statement, (r) => {
    if (++n > q.limit) return;
    last = r;
    if (total === undefined) waiting.push(r);
    else {
      if (waiting.length) flush();
      write(r);
    }
  });
  await Promise.all([rowsRead, totalRead]);
  flush();
  const hasMore = n > q.limit;
  return {
    hasMore,
    nextCursor: hasMore && last ? holderCursor({ address: last[0] as string, balance_raw: last[1] as string }) : null,
    totalRaw: (total as bigint).toString(),
  };
}
