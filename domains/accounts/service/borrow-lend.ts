// borrowLendUserState from the ledger: a user's supplied and borrowed amount per token, summed from its
// `borrowLend` ledger updates. Each update moves one side (supply/withdraw the supply side, borrow/repay the borrow
// side) by its `amount` and adds the `interestAmount` accrued on that side since the previous update. Basis and
// value are the same sum here (the ledger carries no index to value them separately). Health is computed from those
// positions at the reserves' latest oracle prices and loan-to-value ratios (borrowLendHealth).
import type pg from 'pg';

export interface BorrowLendSide {
  basis: string;
  value: string;
}

export type BorrowLendHealth = 'healthy' | 'atRisk' | 'marketLiquidatable' | 'backstopLiquidatable';

export interface BorrowLendUserState {
  tokenToState: [number, { borrow: BorrowLendSide; supply: BorrowLendSide }][];
  health: BorrowLendHealth;
  healthFactor: string | null;
}

/** What health needs of a reserve: its token's oracle price and loan-to-value ratio (decimal strings). */
export interface ReservePricing {
  token: number;
  oraclePx: string;
  ltv: string;
}

/** Health factors below these read atRisk, marketLiquidatable and backstopLiquidatable (1 = borrowing capacity used). */
export const HEALTH_THRESHOLDS = { atRisk: 1.1, marketLiquidatable: 1, backstopLiquidatable: 2 / 3 } as const;

/**
 * Health of borrow/lend positions: the health factor is the borrowing capacity (each token supplied × its oracle
 * price × its ltv) over the debt (each token borrowed × its oracle price). No debt: `healthy` with a null factor.
 * Under 1.1 the account is atRisk, under 1 marketLiquidatable, under 2/3 backstopLiquidatable (the perp margin's
 * backstop point). A token without a reserve sample has no known price: it counts for neither side.
 */
export function borrowLendHealth(
  tokenToState: BorrowLendUserState['tokenToState'],
  reserves: readonly ReservePricing[],
): Pick<BorrowLendUserState, 'health' | 'healthFactor'> {
  const pricing = new Map(reserves.map((r) => [r.token, r]));
  let capacity = 0;
  let debt = 0;
  for (const [token, { borrow, supply }] of tokenToState) {
    const r = pricing.get(token);
    if (!r) continue;
    const px = Number(r.oraclePx);
    capacity += Number(supply.value) * px * Number(r.ltv);
    debt += Number(borrow.value) * px;
  }
  if (!(debt > 0)) return { health: 'healthy', healthFactor: null };
  const factor = capacity / debt;
  const health: BorrowLendHealth =
    factor < HEALTH_THRESHOLDS.backstopLiquidatable
      ? 'backstopLiquidatable'
      : factor < HEALTH_THRESHOLDS.marketLiquidatable
        ? 'marketLiquidatable'
        : factor < HEALTH_THRESHOLDS.atRisk
          ? 'atRisk'
          : 'healthy';
  // The exchange's decimal-string form, to 6 decimals (trailing zeros dropped, at least one decimal).
  const text = factor.toFixed(6).replace(/0+$/, '').replace(/\.$/, '.0');
  return { health, healthFactor: text };
}

export async function borrowLendUserState(
  pool: pg.Pool,
  user: string,
  reserves: readonly ReservePricing[] = [],
): Promise<BorrowLendUserState> {
  const { rows } = await pool.query<{ token: number; supplied: string; borrowed: string }>(
    `SELECT (delta->>'token')::int AS token,
       sum(CASE delta->>'operation' WHEN 'supply' THEN amount WHEN 'withdraw' THEN -amount ELSE 0 END
           + CASE WHEN delta->>'operation' IN ('supply', 'withdraw') THEN interest ELSE 0 END)::text AS supplied,
       sum(CASE delta->>'operation' WHEN 'borrow' THEN amount WHEN 'repay' THEN -amount ELSE 0 END
           + CASE WHEN delta->>'operation' IN ('borrow', 'repay') THEN interest ELSE 0 END)::text AS borrowed
     FROM accounts.ledger_updates,
       LATERAL (SELECT (delta->>'amount')::numeric AS amount,
                       coalesce((delta->>'interestAmount')::numeric, 0) AS interest) v
     WHERE address = $1 AND delta_type = 'borrowLend' AND delta->>'token' ~ '^[0-9]+$'
     GROUP BY 1 ORDER BY 1`,
    [user],
  );
  // The exchange prints a whole amount with one decimal ("0.0").
  const side = (amount: string): BorrowLendSide => {
    const text = amount.includes('.') ? amount : `${amount}.0`;
    return { basis: text, value: text };
  };
  const tokenToState: BorrowLendUserState['tokenToState'] = rows.map((r) => [
    r.token,
    { borrow: side(r.borrowed), supply: side(r.supplied) },
  ]);
  return { tokenToState, ...borrowLendHealth(tokenToState, reserves) };
}
