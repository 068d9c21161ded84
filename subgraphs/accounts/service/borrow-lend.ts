// borrowLendUserState from the ledger: a user's supplied and borrowed amount per token, summed from its
// `borrowLend` ledger updates (supply/withdraw, borrow/repay; accrued interest included). Basis and value are the
// same sum here (the ledger carries no index to value them separately); health is reported from the node only,
// so a ledger-derived state always reads `healthy` with no health factor.
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
       sum(CASE delta->>'operation' WHEN 'supply' THEN (delta->>'amount')::numeric
                                    WHEN 'withdraw' THEN -(delta->>'amount')::numeric ELSE 0 END)::text AS supplied,
       sum(CASE delta->>'operation' WHEN 'borrow' THEN (delta->>'amount')::numeric
                                    WHEN 'repay' THEN -(delta->>'amount')::numeric ELSE 0 END
           + coalesce((delta->>'interestAmount')::numeric, 0))::text AS borrowed
     FROM accounts.ledger_updates
     WHERE address = $1 AND delta_type = 'borrowLend' AND delta->>'token' ~ '^[0-9]+$'
     GROUP BY 1 ORDER BY 1`,
    [user],
  );
  return {
    tokenToState: rows.map((r) => [
      r.token,
      { borrow: { basis: r.borrowed, value: r.borrowed }, supply: { basis: r.supplied, value: r.supplied } },
    ]),
    health: 'healthy',
    healthFactor: null,
  };
}
