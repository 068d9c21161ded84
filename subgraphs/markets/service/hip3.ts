// HIP-3 dex coins (`dex:COIN`): the latest price, funding, open interest and 24 h / cumulative volume, fees and
// trade counts per coin (/hip3/snapshots), and the same rows ranked by price movement (/hip3/top-movers).
import type pg from 'pg';
import type { AssetCtxRow } from '../../../db/rows/markets.ts';

export interface Hip3Snapshot {
  dex_id: string;
  coin: string;
  current_mark_price: string | null;
  current_oracle_price: string | null;
  current_funding_rate: string | null;
  open_interest: string | null;
  volume_24h: string;
  fees_24h: string;
  trades_24h: number;
  total_volume_cumulative: string;
  total_fees_cumulative: string;
  is_halted: boolean;
  last_update: number | null;
}

interface TradeTotals {
  coin: string;
  volume_24h: string;
  fees_24h: string;
  trades_24h: number;
  volume_all: string;
  fees_all: string;
}

export async function hip3Snapshots(
  pool: pg.Pool,
  ctxs: ReadonlyMap<string, AssetCtxRow>,
  now: number,
  filter: { dexId?: string; coin?: string } = {},
): Promise<Hip3Snapshot[]> {
  const { rows } = await pool.query<TradeTotals>(
    `SELECT coin,
       coalesce(sum(px * sz) FILTER (WHERE time >= $1), 0)::text AS volume_24h,
       coalesce(sum(fees) FILTER (WHERE time >= $1), 0)::text AS fees_24h,
       (count(*) FILTER (WHERE time >= $1))::int AS trades_24h,
       sum(px * sz)::text AS volume_all, sum(fees)::text AS fees_all
     FROM markets.trades WHERE coin LIKE '%:%' GROUP BY coin`,
    [now - 86_400_000],
  );
  const totals = new Map(rows.map((r) => [r.coin, r]));
  const coins = new Set([...ctxs.keys(), ...totals.keys()].filter((c) => c.includes(':')));
  const out: Hip3Snapshot[] = [];
  for (const coin of [...coins].sort()) {
    const dexId = dexOf(coin);
    if ((filter.dexId && filter.dexId !== dexId) || (filter.coin && filter.coin !== coin)) continue;
    const ctx = ctxs.get(coin);
    const t = totals.get(coin);
    out.push({
      dex_id: dexId,
      coin,
      current_mark_price: ctx?.mark_px ?? null,
      current_oracle_price: ctx?.oracle_px ?? null,
      current_funding_rate: ctx?.funding ?? null,
      open_interest: ctx?.open_interest ?? null,
      volume_24h: t?.volume_24h ?? '0',
      fees_24h: t?.fees_24h ?? '0',
      trades_24h: t?.trades_24h ?? 0,
      total_volume_cumulative: t?.volume_all ?? '0',
      total_fees_cumulative: t?.fees_all ?? '0',
      // A coin whose oracle stopped updating for an hour is reported halted.
      is_halted: ctx ? now - ctx.time > 3_600_000 : true,
      last_update: ctx?.time ?? null,
    });
  }
  return out;
}

/** Price movement over 24 h (mark against the previous day's price), as a fraction; 0 when unknown. */
/** The HIP-3 dex a coin is listed on (`<dex>:<COIN>`); '' for the native perp dex and spot. */
export function dexOf(coin: string): string {
  const colon = coin.indexOf(':');
  return colon > 0 ? coin.slice(0, colon) : '';
}

export function priceMove(ctx: AssetCtxRow | undefined): number {
  const mark = Number(ctx?.mark_px);
  const prev = Number(ctx?.prev_day_px);
  return mark > 0 && prev > 0 ? mark / prev - 1 : 0;
}
