// borrowLendUserState from the ledger: a user's supplied and borrowed amount per token, summed from its
// `borrowLend` ledger updates. Each update moves one side (supply/withdraw the supply side, borrow/repay the borrow
// side) by its `amount` and adds the `interestAmount` accrued on that side since the previous update. Basis and
// value are the same sum here (the ledger carries no index to value them separately); health is reported from the
// node only, so a ledger-derived state always reads `healthy` with no health factor.
import type pg from 'pg';

export interface BorrowLendSide {
  basis: string;
  value: string;
}

export interface BorrowLendUserState {
  tokenToState: [number, { borrow: BorrowLendSide; supply: BorrowLendSide }][];
  health: 'healthy' | 'atRisk' | 'marketLiquidatable' | 'backstopLiquidatable';
  healthFactor: string | null;
}

export async function borrowLendUserState(pool: pg.Pool, user: string): Promise<BorrowLendUserState> {
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
  return {
    tokenToState: rows.map((r) => [r.token, { borrow: side(r.borrowed), supply: side(r.supplied) }]),
    health: 'healthy',
    healthFactor: null,
  };
}
