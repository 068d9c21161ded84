// Tokens and their holders: the holders page of `/<chain>/testnet/tokens/{address}/holders` (balance descending,
// the `token_holders_balance` index order) with each holder's share of all holdings. The sum of the holdings
// changes only when a transfer mints or burns (ingest keeps no balance for the zero and system addresses), so it
// is cached per token and dropped on such a transfer only: a page at any depth costs one index range read.
import type pg from 'pg';
import { mintsOrBurns, type TokenTransferRow } from '../../../db/rows/evm.ts';
import { FieldError } from '../../../platform/fields.ts';
import { HOLDER_CURSOR } from './inputs.ts';
import { type Page, type PageQuery, pageClause, sqlParams } from './paging.ts';

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

export interface HoldersPage extends Page<TokenHolder> {
  /** The cursor of the next page (keyset), null on the last. */
  nextCursor: string | null;
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
function wholeTokens(raw: bigint, decimals: number): number {
  if (decimals === 0) return Number(raw);
  const unit = 10n ** BigInt(decimals);
  return Number(raw / unit) + Number(raw % unit) / Number(unit);
}

/** `part / whole` as a float with 12 significant digits of the ratio (both may exceed 2^53). */
function shareOf(part: bigint, whole: bigint): number {
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
  const { params, param } = sqlParams();
  // Ordered by the numeric column `h.balance_raw`: the text alias of the same name would sort "99" above "100".
  const cols = 'SELECT h.address, h.balance_raw::text AS balance_raw FROM evm.token_holders h';
  const t = param(token);
  let sql: string;
  if (query.cursor === undefined) {
    sql = `${cols} WHERE h.token = ${t} AND h.balance_raw > 0 ORDER BY h.balance_raw DESC, h.address ${pageClause(q, param)}`;
  } else {
    if (q.offset !== 0) throw new FieldError('offset: must be 0 (or absent) with cursor');
    const c = parseHolderCursor(query.cursor);
    const b = param(c.balance);
    const n = param(q.limit + 1);
    sql = `(${cols} WHERE h.token = ${t} AND h.balance_raw = ${b}::numeric AND h.address > ${param(c.address)}
              ORDER BY h.address LIMIT ${n})
           UNION ALL
           (${cols} WHERE h.token = ${t} AND h.balance_raw < ${b}::numeric AND h.balance_raw > 0
              ORDER BY h.balance_raw DESC, h.address LIMIT ${n})
           LIMIT ${n}`;
  }
  const [{ rows }, total] = await Promise.all([
    pool.query<{ address: string; balance_raw: string }>(sql, params),
    totals.total(token),
  ]);
  const page = rows.slice(0, q.limit).map((r) => {
    const raw = BigInt(r.balance_raw);
    return {
      address: r.address,
      balance_raw: r.balance_raw,
      balance: wholeTokens(raw, decimals),
      share: shareOf(raw, total),
    };
  });
  const hasMore = rows.length > q.limit;
  return {
    rows: page,
    hasMore,
    nextCursor: hasMore ? holderCursor(page[page.length - 1] as TokenHolder) : null,
    totalRaw: total.toString(),
  };
}
