-- The entry price a position's walk keeps (accounts.position_step, 0028) rounded to 30 fractional digits at each
-- increase, as service/state.ts's walk (ENTRY_SCALE) does, instead of an exact fraction in lowest terms: between
-- flips a market maker's fraction grew by the digits of every increase (1 000 digits in the scale bench), and reducing
-- it took the read ~9 s of the event loop (gcd) and each batch of ingest its own share. Printed at 8 decimals, the
-- entry price is the same.
CREATE OR REPLACE FUNCTION accounts.position_step(st numeric[], side text, px numeric, sz numeric, start numeric,
  t bigint, blk bigint, ev integer, tid bigint) RETURNS numeric[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  pos numeric := coalesce(st[1], 0);
  n numeric := coalesce(st[2], 0);
  d numeric := coalesce(st[3], 1);
  e numeric := start + CASE WHEN side = 'B' THEN sz ELSE -sz END;
BEGIN
  IF e = 0 THEN
    n := 0;
  ELSIF start = 0 OR sign(start) <> sign(e) THEN
    n := px;
  ELSE
    IF pos <> start AND pos = 0 THEN n := px; d := 1; END IF;
    IF abs(e) > abs(start) THEN
      -- Divided at 40 digits, then rounded to 30: as the TS walk, which divides exactly.
      n := round((n / d * abs(start) + px * sz)::numeric(1000, 40) / abs(e), 30);
    ELSE
      n := round(n / d, 30);
    END IF;
  END IF;
  RETURN ARRAY[e, n, 1, t, blk, ev, tid];
END $$;

-- Positions walked before: their fraction as the rounded price.
UPDATE accounts.perp_positions SET entry_n = round(entry_n / entry_d, 30), entry_d = 1 WHERE entry_d <> 1;
