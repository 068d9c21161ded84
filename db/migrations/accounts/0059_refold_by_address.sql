-- The stale positions of one address walked again together (the accounts writer, writer/state-fill.ts refoldStale):
-- one read of the address's fills since the oldest of their opens, walked per coin, instead of one read per position.
-- The fills' address index has no coin (0058: `(address, time)`), so walking a market maker's ~230 stale positions
-- one by one read all its fills since each open ~230 times over: after a mainnet-shaped day's backfill, ~1 000
-- positions a minute. It replaces accounts.refold_position (0028), each position ending as that left it (checked on
-- that day's busiest maker: 151 stale positions, the same rows, 1.2 s against 8.5).
-- Planned for each call's values: the generic plan PL/pgSQL turns to after five calls intersects the address's fills
-- with each coin's whole index range (fills_coin_time), every trader's fills of BTC for a position in BTC.
CREATE FUNCTION accounts.refold_positions(addr text, coins text[]) RETURNS void LANGUAGE plpgsql
SET plan_cache_mode = force_custom_plan AS $$
DECLARE
  since bigint;
BEGIN
  PERFORM accounts.lock_account_state();
  PERFORM 1 FROM accounts.perp_positions WHERE address = addr AND coin = ANY(coins) FOR UPDATE;
  -- The oldest open among them (NULL when one has none: it is walked from its first fill).
  SELECT CASE WHEN bool_or(opened_at IS NULL) THEN NULL ELSE min(opened_at) END INTO since
  FROM accounts.perp_positions WHERE address = addr AND coin = ANY(coins);
  WITH walked AS (
    SELECT f.coin, accounts.position_walk(f.side, f.px, f.sz, f.start_position, f.time, f.block_number,
             f.event_index, f.tid ORDER BY f.time, f.block_number, f.event_index, f.tid) AS st
    FROM accounts.fills f
    JOIN accounts.perp_positions p ON p.address = addr AND p.coin = f.coin
    WHERE f.address = addr AND f.coin = ANY(coins) AND (since IS NULL OR f.time >= since)
      AND (p.opened_at IS NULL OR f.time >= p.opened_at)
    GROUP BY f.coin
  ), paid AS (
    SELECT fp.coin, sum(fp.usdc) AS usdc
    FROM accounts.funding_payments fp
    JOIN accounts.perp_positions p ON p.address = addr AND p.coin = fp.coin
    WHERE fp.address = addr AND fp.coin = ANY(coins) AND (since IS NULL OR fp.time >= since)
      AND (p.opened_at IS NULL OR fp.time >= p.opened_at)
    GROUP BY fp.coin
  )
  UPDATE accounts.perp_positions p SET pos = coalesce(w.st[1], 0), entry_n = coalesce(w.st[2], 0),
    entry_d = coalesce(w.st[3], 1), walk_time = w.st[4], walk_block = w.st[5], walk_event = w.st[6],
    walk_tid = w.st[7], stale = false, funding = coalesce(paid.usdc, 0)
  FROM unnest(coins) AS c(coin)
  LEFT JOIN walked w ON w.coin = c.coin
  LEFT JOIN paid ON paid.coin = c.coin
  WHERE p.address = addr AND p.coin = c.coin;
END $$;

DROP FUNCTION accounts.refold_position(text, text);
