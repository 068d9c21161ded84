-- accounts: the perp account state of /users/{user}/account kept as it goes, so that a read costs one row per coin
-- the user has traded instead of every fill, funding payment and ledger row stored (at mainnet size a market maker's
-- sum outlasted the statement timeout). Kept by ingest's loaders in the transaction that stores the rows
-- (ingest/formats/fills.ts, misc.ts: accounts.apply_fills, apply_funding, add_cash), from the very rows stored, so a
-- row counts once however often a lane is restarted. service/state.ts reads it; its header states the rules.
--
-- Every function here takes one transaction lock first (ACCOUNT_STATE_LOCK below): the fills and the misc events are
-- two streams loaded by lanes of their own, the present and a backfill of each, and the accounts writer beside them
-- (domains/accounts/writer/): they update the same rows, and a position's funding since open is a range of funding
-- rows read when the position opens, which must not interleave with a misc batch adding to it.

-- Cash per address: ledger (service/cash.ts's rule, computed by the loader) + Σ(closedPnl − fee) of perp fills +
-- Σ funding of perp coins. Sums commute, so the order rows arrive in does not matter.
CREATE TABLE accounts.perp_cash (
  address  text PRIMARY KEY,
  cash     numeric NOT NULL
);

-- One row per address and perp coin it has fills or funding of.
CREATE TABLE accounts.perp_positions (
  address     text NOT NULL,
  coin        text NOT NULL,
  last_time   bigint,            -- the newest fill's time (NULL: funding only); the read takes that time's fills
  opened_at   bigint,            -- the newest fill that opened the position from flat or flipped it (NULL: none)
  -- The average-cost walk over the fills in execution order (position, entry = entry_n / entry_d, exact and in
  -- lowest terms), and the place of the last fill it took. A fill that sorts before that place and not before
  -- opened_at (a backfill loading the past after the present) changes it: the row is then `stale` until the accounts
  -- writer walks it again from opened_at, and the read walks that coin's fills itself meanwhile.
  pos         numeric NOT NULL DEFAULT 0,
  entry_n     numeric NOT NULL DEFAULT 0,
  entry_d     numeric NOT NULL DEFAULT 1,
  walk_time   bigint,
  walk_block  bigint,
  walk_event  integer,
  walk_tid    bigint,
  stale       boolean NOT NULL DEFAULT false,
  funding     numeric NOT NULL DEFAULT 0,  -- Σ funding with time >= opened_at (every one while opened_at is NULL)
  PRIMARY KEY (address, coin)
);
CREATE INDEX perp_positions_stale ON accounts.perp_positions (address, coin) WHERE stale;

-- The account state of rows stored before this migration is computed after it, address by address, by the accounts
-- writer: a migration reading them all would hold ingest back for as long as that takes. This row says how far it
-- got and is deleted when done; until then the addresses after `address` are read from the rows as before.
CREATE TABLE accounts.account_state_fill (
  single   boolean PRIMARY KEY DEFAULT true CHECK (single),
  address  text                 -- every address <= this one is done (NULL: none yet)
);
INSERT INTO accounts.account_state_fill (single)
SELECT true WHERE EXISTS (SELECT 1 FROM accounts.fills) OR EXISTS (SELECT 1 FROM accounts.funding_payments)
  OR EXISTS (SELECT 1 FROM accounts.ledger_updates);

-- The lock every writer of the two tables above takes first (class "hlsh" as db/shared-rows.ts, name hashed).
CREATE FUNCTION accounts.lock_account_state() RETURNS void LANGUAGE sql AS
$$ SELECT pg_advisory_xact_lock(1751937896, hashtext('accounts.account_state')) $$;

-- Whether a fill opens its position from flat or flips it (service/state.ts says the same).
CREATE FUNCTION accounts.is_opening(side text, sz numeric, start numeric) RETURNS boolean
LANGUAGE sql IMMUTABLE AS
$$ SELECT sign(start + CASE WHEN side = 'B' THEN sz ELSE -sz END) NOT IN (0, sign(start)) $$;

-- One fill of the average-cost walk. State {pos, entry_n, entry_d, time, block, event_index, tid}; NULL: none yet.
-- Opened from flat or flipped: entry = px. Closed: nothing. Increased: entry = (entry × |start| + px × sz) / |end|.
-- Reduced: entry kept. A start other than the walk's position (fills missing before it): from flat, entry = px;
-- otherwise the entry is kept. The same as service/state.ts's walk of cost = entry × |position|.
CREATE FUNCTION accounts.position_step(st numeric[], side text, px numeric, sz numeric, start numeric,
  t bigint, blk bigint, ev integer, tid bigint) RETURNS numeric[]
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  pos numeric := coalesce(st[1], 0);
  n numeric := coalesce(st[2], 0);
  d numeric := coalesce(st[3], 1);
  e numeric := start + CASE WHEN side = 'B' THEN sz ELSE -sz END;
  g numeric;
BEGIN
  IF e = 0 THEN
    n := 0; d := 1;
  ELSIF start = 0 OR sign(start) <> sign(e) THEN
    n := px; d := 1;
  ELSE
    IF pos <> start AND pos = 0 THEN n := px; d := 1; END IF;
    IF abs(e) > abs(start) THEN
      n := n * abs(start) + px * sz * d;
      d := d * abs(e);
      g := gcd(n, d);
      n := div(n, g);
      d := div(d, g);
    END IF;
  END IF;
  RETURN ARRAY[e, n, d, t, blk, ev, tid];
END $$;

CREATE AGGREGATE accounts.position_walk(text, numeric, numeric, numeric, bigint, bigint, integer, bigint) (
  SFUNC = accounts.position_step,
  STYPE = numeric[]
);

-- Σ funding of one address and coin over [from, until) (from NULL: from the start).
CREATE FUNCTION accounts.funding_between(addr text, c text, from_t bigint, until_t bigint) RETURNS numeric
LANGUAGE sql STABLE AS $$
  SELECT coalesce(sum(usdc), 0) FROM accounts.funding_payments
  WHERE address = addr AND coin = c AND (from_t IS NULL OR time >= from_t) AND time < until_t
$$;

-- A position row as apply_fills carried it through a batch, written back.
CREATE FUNCTION accounts.save_position(p accounts.perp_positions) RETURNS void LANGUAGE sql AS $$
  UPDATE accounts.perp_positions SET last_time = p.last_time, opened_at = p.opened_at, pos = p.pos,
    entry_n = p.entry_n, entry_d = p.entry_d, walk_time = p.walk_time, walk_block = p.walk_block,
    walk_event = p.walk_event, walk_tid = p.walk_tid, stale = p.stale, funding = p.funding
  WHERE address = p.address AND coin = p.coin
$$;

-- A batch's perp fills (one array per column, the loader's order): cash, and each position's walk continued from
-- where it was. Fills older than the position's open change nothing; any other fill before the walk's place makes
-- the row stale.
CREATE FUNCTION accounts.apply_fills(addresses text[], coins text[], times bigint[], blocks bigint[], events integer[],
  tids bigint[], sides text[], pxs numeric[], szs numeric[], starts numeric[], pnls numeric[], fees numeric[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  f record;
  p accounts.perp_positions%ROWTYPE;
  st numeric[];
  opened bigint;
  have boolean := false;
BEGIN
  PERFORM accounts.lock_account_state();
  INSERT INTO accounts.perp_cash AS c (address, cash)
  SELECT a, sum(pnl - fee) FROM unnest(addresses, pnls, fees) AS u(a, pnl, fee) GROUP BY a
  ON CONFLICT (address) DO UPDATE SET cash = c.cash + EXCLUDED.cash;

  FOR f IN
    SELECT u.*, max(t) OVER w AS last_t,
      max(t) FILTER (WHERE accounts.is_opening(side, sz, start)) OVER w AS opened_t
    FROM unnest(addresses, coins, times, blocks, events, tids, sides, pxs, szs, starts)
      AS u(a, c, t, b, e, tid, side, px, sz, start)
    WINDOW w AS (PARTITION BY a, c)
    ORDER BY a, c, t, b, e, tid
  LOOP
    IF NOT have OR f.a <> p.address OR f.c <> p.coin THEN
      IF have THEN
        PERFORM accounts.save_position(p);
      END IF;
      INSERT INTO accounts.perp_positions (address, coin) VALUES (f.a, f.c) ON CONFLICT DO NOTHING;
      SELECT * INTO p FROM accounts.perp_positions WHERE address = f.a AND coin = f.c FOR UPDATE;
      have := true;
      opened := greatest(p.opened_at, f.opened_t);
      IF opened IS DISTINCT FROM p.opened_at AND NOT p.stale THEN
        -- Funding since open now starts later: what was paid before it leaves the sum.
        p.funding := p.funding - accounts.funding_between(f.a, f.c, p.opened_at, opened);
      END IF;
      p.opened_at := opened;
      p.last_time := greatest(p.last_time, f.last_t);
    END IF;
    -- Older than the open: the walk restarts at the open, and this fill is before it.
    CONTINUE WHEN p.stale OR f.t < p.opened_at;
    IF p.walk_time IS NOT NULL AND (f.t, f.b, f.e, f.tid) <= (p.walk_time, p.walk_block, p.walk_event, p.walk_tid) THEN
      p.stale := true;
      CONTINUE;
    END IF;
    st := accounts.position_step(ARRAY[p.pos, p.entry_n, p.entry_d], f.side, f.px, f.sz, f.start, f.t, f.b, f.e, f.tid);
    p.pos := st[1]; p.entry_n := st[2]; p.entry_d := st[3];
    p.walk_time := f.t; p.walk_block := f.b; p.walk_event := f.e; p.walk_tid := f.tid;
  END LOOP;
  IF have THEN
    PERFORM accounts.save_position(p);
  END IF;
END $$;

-- A batch's perp funding payments: cash, and the funding since open of positions they fall in.
CREATE FUNCTION accounts.apply_funding(addresses text[], coins text[], times bigint[], usdcs numeric[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM accounts.lock_account_state();
  INSERT INTO accounts.perp_cash AS c (address, cash)
  SELECT a, sum(usdc) FROM unnest(addresses, usdcs) AS u(a, usdc) GROUP BY a
  ON CONFLICT (address) DO UPDATE SET cash = c.cash + EXCLUDED.cash;
  INSERT INTO accounts.perp_positions AS p (address, coin, funding)
  SELECT u.a, u.c, coalesce(sum(u.usdc) FILTER (WHERE q.opened_at IS NULL OR u.t >= q.opened_at), 0)
  FROM unnest(addresses, coins, times, usdcs) AS u(a, c, t, usdc)
  LEFT JOIN accounts.perp_positions q ON q.address = u.a AND q.coin = u.c
  GROUP BY u.a, u.c
  ON CONFLICT (address, coin) DO UPDATE SET funding = p.funding + EXCLUDED.funding;
END $$;

-- A batch's ledger updates as what each did to its address's perp USDC (the loader applies service/cash.ts).
CREATE FUNCTION accounts.add_cash(addresses text[], amounts numeric[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM accounts.lock_account_state();
  INSERT INTO accounts.perp_cash AS c (address, cash)
  SELECT a, sum(amount) FROM unnest(addresses, amounts) AS u(a, amount) GROUP BY a
  ON CONFLICT (address) DO UPDATE SET cash = c.cash + EXCLUDED.cash;
END $$;

-- One position walked again from its open, over the stored fills (a stale row, by the accounts writer).
CREATE FUNCTION accounts.refold_position(addr text, c text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  since bigint;
  st numeric[];
BEGIN
  PERFORM accounts.lock_account_state();
  SELECT opened_at INTO since FROM accounts.perp_positions WHERE address = addr AND coin = c FOR UPDATE;
  SELECT accounts.position_walk(side, px, sz, start_position, time, block_number, event_index, tid
           ORDER BY time, block_number, event_index, tid)
  INTO st FROM accounts.fills WHERE address = addr AND coin = c AND (since IS NULL OR time >= since);
  UPDATE accounts.perp_positions SET pos = coalesce(st[1], 0), entry_n = coalesce(st[2], 0),
    entry_d = coalesce(st[3], 1), walk_time = st[4], walk_block = st[5], walk_event = st[6], walk_tid = st[7],
    stale = false, funding = accounts.funding_between(addr, c, since, 9223372036854775807)
  WHERE address = addr AND coin = c;
END $$;

-- One address's state set from all its stored rows (the fill of history older than this migration); `ledger`: its
-- ledger's cash, summed by the writer with service/cash.ts.
CREATE FUNCTION accounts.refold_address(addr text, ledger numeric) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM accounts.lock_account_state();
  DELETE FROM accounts.perp_positions WHERE address = addr;
  DELETE FROM accounts.perp_cash WHERE address = addr;
  INSERT INTO accounts.perp_positions (address, coin, last_time, opened_at, pos, entry_n, entry_d, walk_time,
    walk_block, walk_event, walk_tid)
  SELECT addr, coin, last_t, opened_t, st[1], st[2], st[3], st[4], st[5], st[6], st[7]
  FROM (
    SELECT coin, max(time) AS last_t,
      max(time) FILTER (WHERE accounts.is_opening(side, sz, start_position)) AS opened_t,
      accounts.position_walk(side, px, sz, start_position, time, block_number, event_index, tid
        ORDER BY time, block_number, event_index, tid) AS st
    FROM accounts.fills WHERE address = addr AND coin !~ '[/@#:]' GROUP BY coin
  ) w;
  INSERT INTO accounts.perp_positions AS p (address, coin, funding)
  SELECT addr, fp.coin, coalesce(sum(fp.usdc) FILTER (WHERE q.opened_at IS NULL OR fp.time >= q.opened_at), 0)
  FROM accounts.funding_payments fp
  LEFT JOIN accounts.perp_positions q ON q.address = addr AND q.coin = fp.coin
  WHERE fp.address = addr AND fp.coin !~ '[/@#:]'
  GROUP BY fp.coin
  ON CONFLICT (address, coin) DO UPDATE SET funding = EXCLUDED.funding;
  INSERT INTO accounts.perp_cash (address, cash)
  SELECT addr, ledger
    + (SELECT coalesce(sum(closed_pnl - fee), 0) FROM accounts.fills WHERE address = addr AND coin !~ '[/@#:]')
    + (SELECT coalesce(sum(usdc), 0) FROM accounts.funding_payments WHERE address = addr AND coin !~ '[/@#:]');
END $$;
