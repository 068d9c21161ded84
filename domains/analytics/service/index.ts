// The analytics domain's service: the one façade the subgraph, compat routes and MCP tools call. It reads only the
// analytics schema, which the derivation job (its writer, writer/) fills: round trips, hourly snapshots, daily and hourly
// sums, leaderboard windows and builder activity. Every rule (windows, defaults, caps, sorts) lives here once;
// answers carry decimal strings and epoch-ms times, and each edge shapes them.
import type pg from 'pg';
import type { DomainService } from '../../../kit/domain.ts';
import type { InputOf } from '../../../kit/input.ts';
import { addDecimal } from '../../../platform/decimal.ts';
import type {
  BuilderActivity,
  CalendarDay,
  EquityHistory,
  EquityPoint,
  ExternalActivity,
  LeaderboardPage,
  LeaderboardRow,
  Performance,
  PnlCalendar,
  Trade,
  WalletActivity,
} from './answers.ts';
import {
  type BATCH_PERFORMANCE,
  type EQUITY_HISTORY,
  type EXTERNAL_ACTIVITY,
  type LEADERBOARD,
  type LEADERBOARD_RANK,
  LIVE_TOP,
  type PERFORMANCE,
  type PNL_CALENDAR,
  type ROUND_TRIPS,
  TIMEFRAME_MS,
  type TOP_TRADES,
  type Window,
  windowBounds,
} from './inputs.ts';
import {
  defaultMinTrades,
  LIVE_BOARDS,
  type Metric,
  metricOrder,
  rankColumn,
  rankingSums,
  withCurrentValue,
} from './ranking.ts';
import {
  DAY_MS,
  drawdownAggregates,
  HOUR_MS,
  type WindowHours,
  windowHours,
  windowParams,
  windowRows,
} from './window.ts';

const num = (col: string) => `trim_scale(${col})::text`;

export interface AnalyticsServiceOptions {
  pool: pg.Pool;
  now?: () => number;
}

export class AnalyticsService implements DomainService {
  private readonly pool: pg.Pool;
  private readonly now: () => number;

  constructor(opts: AnalyticsServiceOptions) {
    this.pool = opts.pool;
    this.now = opts.now ?? Date.now;
  }

  stop(): void {}

  // ---- leaderboard ----

  /**
   * A page of a scheduled window ranked by `by`, or without `window` the live top 100 over the last `hours`. The
   * ratio metrics rank only accounts with at least `minTrades` closed trips (default 10; 0 for the others).
   */
  /**
   * A user's place in a scheduled window's ranking by `by` (the rank its refresh numbered, the default `min_trades`
   * rule of the metric); null when the window does not rank the user.
   */
  async leaderboardRank({ user, window, by }: InputOf<typeof LEADERBOARD_RANK>): Promise<number | null> {
    const { rows } = await this.pool.query<{ rank: number | null }>(
      `SELECT ${rankColumn(by)} AS rank FROM analytics.leaderboard WHERE window_name = $1 AND address = $2`,
      [window, user],
    );
    return rows[0]?.rank ?? null;
  }

  async leaderboard(q: InputOf<typeof LEADERBOARD>): Promise<LeaderboardPage> {
    const { by } = q;
    const minTrades = q.minTrades ?? defaultMinTrades(by);
    // Qualified: a bare name would sort by the select list's text of the same name.
    const order = (alias: string) => `${metricOrder(by, alias)} DESC NULLS LAST, ${alias}.address`;
    const rowColumns = `address, fills, trades, ${num('volume')} AS volume, ${num('realized_pnl')} AS realized_pnl,
      ${num('fees')} AS fees, ${num('funding')} AS funding, ${num('realized_pnl - fees + funding')} AS pnl, wins, losses,
      ${num('win_rate')} AS win_rate, ${num('pnl_pct')} AS pnl_pct, ${num('account_value')} AS account_value,
      ${num('unrealized_pnl')} AS unrealized_pnl`;
    if (q.window === undefined) {
      const { hours } = q;
      const now = this.now();
      const span = windowHours(now - hours * HOUR_MS, now);
      // The live boards numbered ahead (about a minute behind the derivation) answer their hours under the default
      // filter.
      const cadence = LIVE_BOARDS.get(hours);
      if (cadence !== undefined && minTrades === defaultMinTrades(by)) {
        const ahead = await this.liveBoard(hours, by, span, 2 * cadence, rowColumns);
        if (ahead) return ahead;
      }
      const { rows } = await this.pool.query<Omit<LeaderboardRow, 'rank' | 'refreshed_at'> & { total: number }>(
        `SELECT ${rowColumns}, count(*) OVER ()::int AS total
         FROM (${withCurrentValue(rankingSums(windowRows(2, 'true')))}) r
         WHERE trades >= $1 ORDER BY ${order('r')} LIMIT ${LIVE_TOP}`,
        [minTrades, ...windowParams(span)],
      );
      const total = rows[0]?.total ?? 0;
      return {
        window: null,
        by,
        rows: rows.map(({ total: _, ...r }, i) => ({ rank: i + 1, ...r, refreshed_at: now })),
        totalCount: total,
        hasMore: total > rows.length,
        refreshedAt: now,
      };
    }
    const { window, limit, page } = q;
    const offset = (page - 1) * limit;
    const selectRows = `SELECT ${rowColumns}, (extract(epoch FROM refreshed_at) * 1000)::int8 AS refreshed_at
      FROM analytics.leaderboard l`;
    // The default filter reads the ranks the refresh numbered (an index range); another `min_trades` sorts the window.
    const rank = rankColumn(by);
    const [{ rows }, { rows: meta }] = await Promise.all(
      minTrades === defaultMinTrades(by)
        ? [
            this.pool.query<Omit<LeaderboardRow, 'rank'>>(
              `${selectRows} WHERE window_name = $1 AND ${rank} > $2 AND ${rank} <= $3 ORDER BY ${rank}`,
              [window, offset, offset + limit],
            ),
            // Every row of a window carries the same refresh time; the last rank is the count.
            this.pool.query<{ total: number; refreshed_at: number | null }>(
              `SELECT ${rank} AS total, (extract(epoch FROM refreshed_at) * 1000)::int8 AS refreshed_at
               FROM analytics.leaderboard WHERE window_name = $1 AND ${rank} IS NOT NULL ORDER BY ${rank} DESC LIMIT 1`,
              [window],
            ),
          ]
        : [
            this.pool.query<Omit<LeaderboardRow, 'rank'>>(
              `${selectRows} WHERE window_name = $1 AND trades >= $2 ORDER BY ${order('l')} LIMIT $3 OFFSET $4`,
              [window, minTrades, limit, offset],
            ),
            this.pool.query<{ total: number; refreshed_at: number | null }>(
              `SELECT count(*)::int AS total, (extract(epoch FROM max(refreshed_at)) * 1000)::int8 AS refreshed_at
               FROM analytics.leaderboard WHERE window_name = $1 AND trades >= $2`,
              [window, minTrades],
            ),
          ],
    );
    const total = meta[0]?.total ?? 0;
    return {
      window,
      by,
      rows: rows.map((r, i) => ({ rank: offset + i + 1, ...r })),
      totalCount: total,
      hasMore: offset + rows.length < total,
      refreshedAt: meta[0]?.refreshed_at ?? null,
    };
  }

  /**
   * The live top 100 of `hours` by `by` as the writer numbered it (writer/leaderboard.ts refreshLiveBoards), when it
   * counts the same hours as a request now and the derivation is at most `maxLagMs` of events past it; else null.
   */
  private async liveBoard(
    hours: number,
    by: Metric,
    span: WindowHours,
    maxLagMs: number,
    rowColumns: string,
  ): Promise<LeaderboardPage | null> {
    const { rows } = await this.pool.query<
      Omit<LeaderboardRow, 'refreshed_at'> & { board_total: number; board_refreshed_at: number }
    >(
      `SELECT b.refreshed_at AS board_refreshed_at, (b.totals ->> $2)::int AS board_total, r.*
       FROM analytics.live_boards b
       JOIN analytics.derive_checkpoint c ON c.job = 'analytics'
       LEFT JOIN LATERAL (SELECT rank, ${rowColumns} FROM analytics.live_leaderboard l
                          WHERE l.hours = b.hours AND l.metric = $2 ORDER BY rank) r ON true
       WHERE b.hours = $1 AND b.window_from = $3 AND b.window_to = $4 AND b.derived_until >= c.cursor_time - $5
       ORDER BY r.rank`,
      [hours, by, span.from, span.to, maxLagMs],
    );
    const head = rows[0];
    if (!head) return null;
    const refreshedAt = Number(head.board_refreshed_at);
    const ranked = head.address === null ? [] : rows;
    return {
      window: null,
      by,
      rows: ranked.map(({ board_total: _t, board_refreshed_at: _r, ...r }) => ({ ...r, refreshed_at: refreshedAt })),
      totalCount: head.board_total,
      hasMore: head.board_total > ranked.length,
      refreshedAt,
    };
  }

  // ---- performance ----

  async performance(q: InputOf<typeof PERFORMANCE>): Promise<Performance> {
    const [p] = await this.performances({ ...q, users: [q.user], includeDrawdown: true });
    return p as Performance;
  }

  /** One entry per address in submission order (1 to 500); without `includeDrawdown`, no drawdown fields. */
  async batchPerformance(q: InputOf<typeof BATCH_PERFORMANCE>): Promise<Performance[]> {
    return this.performances(q);
  }

  private async performances(q: {
    users: readonly string[];
    window: Window;
    startTime?: number;
    endTime?: number;
    includeDrawdown: boolean;
  }): Promise<Performance[]> {
    const { window } = q;
    const { start, end } = windowBounds(window, this.now(), q.startTime, q.endTime);
    const users = [...new Set(q.users)];
    // The window's hours (window.ts): every UTC hour overlapping [start, end], the sums and the trips closed alike.
    const hours = windowHours(start, end);
    const [sums, trips, equity, latest] = await Promise.all([
      this.pool.query(
        `SELECT address, sum(fills)::int AS fills, ${num('sum(volume)')} AS volume,
           ${num('sum(realized_pnl)')} AS realized_pnl, ${num('sum(fees)')} AS fees, ${num('sum(funding)')} AS funding,
           ${num('sum(realized_pnl) - sum(fees) + sum(funding)')} AS net_pnl, sum(longs)::int AS longs,
           sum(shorts)::int AS shorts
         FROM (${windowRows(2, 'address = ANY($1)')}) h GROUP BY address`,
        [users, ...windowParams(hours)],
      ),
      // Closed trips in the window: wins, losses, best and worst; with the drawdown, in close order, the drawdown of
      // the realized curve (cumulative net PnL per trip, from 0 at the window's start). Without it (a batch's
      // default) no ordering or running sums: a plain aggregate, several times cheaper over 500 wallets.
      this.pool.query(
        q.includeDrawdown
          ? `SELECT address, count(*)::int AS trades, count(*) FILTER (WHERE net > 0)::int AS wins,
               count(*) FILTER (WHERE net < 0)::int AS losses, ${num('max(pnl)')} AS best, ${num('min(pnl)')} AS worst,
               ${num('max(peak - cum)')} AS max_drawdown
             FROM (SELECT address, pnl, net, cum,
                     greatest(0, max(cum) OVER (PARTITION BY address ORDER BY closed_at, opened_at, open_seq)) AS peak
                   FROM (SELECT address, pnl, pnl - fees + funding AS net, closed_at, opened_at, open_seq,
                           sum(pnl - fees + funding) OVER (PARTITION BY address ORDER BY closed_at, opened_at, open_seq)
                             AS cum
                         FROM analytics.round_trips
                         WHERE address = ANY($1) AND closed_at >= $2 AND closed_at < $3) t) c
             GROUP BY address`
          : `SELECT address, count(*)::int AS trades, count(*) FILTER (WHERE pnl - fees + funding > 0)::int AS wins,
               count(*) FILTER (WHERE pnl - fees + funding < 0)::int AS losses, ${num('max(pnl)')} AS best,
               ${num('min(pnl)')} AS worst
             FROM analytics.round_trips WHERE address = ANY($1) AND closed_at >= $2 AND closed_at < $3
             GROUP BY address`,
        [users, hours.from, hours.to],
      ),
      // Equity points are instants: the snapshots inside [start, end].
      q.includeDrawdown
        ? this.pool.query(
            `SELECT address, n::int AS n, ${num('dd_usd')} AS dd_usd, ${num('dd_pct')} AS dd_pct
             FROM (SELECT address, ${drawdownAggregates('account_value', 'peak')}, count(*) AS n
                   FROM (SELECT address, account_value, max(account_value) OVER (PARTITION BY address ORDER BY time) AS peak
                         FROM analytics.account_snapshots WHERE address = ANY($1) AND time >= $2 AND time <= $3) s
                   GROUP BY address) d`,
            [users, start ?? 0, end],
          )
        : null,
      this.pool.query(
        `SELECT u.address, ${num('snap.account_value')} AS account_value
         FROM unnest($1::text[]) AS u (address)
         LEFT JOIN LATERAL (SELECT account_value FROM analytics.account_snapshots s
                            WHERE s.address = u.address AND s.time <= $2 ORDER BY time DESC LIMIT 1) snap ON true`,
        [users, end],
      ),
    ]);
    const by = <R extends { address: string }>(rows: R[]) => new Map(rows.map((r) => [r.address, r]));
    const sumsOf = by(sums.rows);
    const tripsOf = by(trips.rows);
    const equityOf = by(equity?.rows ?? []);
    const latestOf = by(latest.rows);
    return q.users.map((user) => {
      const s = sumsOf.get(user);
      const t = tripsOf.get(user);
      const e = equityOf.get(user);
      const longs = s?.longs ?? 0;
      const shorts = s?.shorts ?? 0;
      const trades = t?.trades ?? 0;
      const p: Performance = {
        address: user,
        window: q.startTime !== undefined || q.endTime !== undefined ? 'custom' : window,
        start_time: start,
        end_time: end,
        fills: s?.fills ?? 0,
        volume: s?.volume ?? '0',
        realized_pnl: s?.realized_pnl ?? '0',
        total_fees: s?.fees ?? '0',
        total_funding: s?.funding ?? '0',
        net_pnl: s?.net_pnl ?? '0',
        trades,
        wins: t?.wins ?? 0,
        losses: t?.losses ?? 0,
        win_rate: trades ? ratioText(t.wins, trades) : null,
        longs,
        shorts,
        long_short_ratio: shorts ? ratioText(longs, shorts) : null,
        long_pct: longs + shorts ? ratioText(100 * longs, longs + shorts) : null,
        best_trade_pnl: t?.best ?? null,
        worst_trade_pnl: t?.worst ?? null,
        account_value: latestOf.get(user)?.account_value ?? null,
      };
      if (q.includeDrawdown) {
        p.max_drawdown = t?.max_drawdown ?? '0';
        p.equity_max_drawdown_usd = e?.dd_usd ?? null;
        p.equity_max_drawdown_pct = e?.dd_pct ?? null;
        p.equity_snapshots = e?.n ?? 0;
      }
      return p;
    });
  }

  // ---- equity, calendar, trades ----

  async equityHistory({ user, interval, window }: InputOf<typeof EQUITY_HISTORY>): Promise<EquityHistory> {
    const { start, end } = windowBounds(window, this.now());
    const columns = `time, ${num('account_value')} AS account_value, ${num('cash')} AS cash,
      ${num('position_value')} AS position_value, ${num('unrealized_pnl')} AS unrealized_pnl,
      ${num('account_leverage')} AS account_leverage, n_positions`;
    const where = 'address = $1 AND time >= $2 AND time <= $3';
    // 1d: the last snapshot of each UTC day (the day's close).
    const sql =
      interval === '1h'
        ? `SELECT ${columns} FROM analytics.account_snapshots WHERE ${where} ORDER BY time`
        : `SELECT * FROM (SELECT DISTINCT ON (time / ${DAY_MS}) ${columns} FROM analytics.account_snapshots
             WHERE ${where} ORDER BY time / ${DAY_MS}, time DESC) d ORDER BY time`;
    const { rows: points } = await this.pool.query<EquityPoint>(sql, [user, start ?? 0, end]);
    const { rows: summary } = await this.pool.query(
      `SELECT ${num('first_value')} AS start_value, ${num('last_value')} AS end_value,
         ${num('last_value - first_value')} AS change,
         CASE WHEN first_value > 0 THEN ${num('round((last_value - first_value) / first_value * 100, 6)')} END AS change_pct,
         ${num('dd_usd')} AS max_drawdown_usd, ${num('dd_pct')} AS max_drawdown_pct
       FROM (SELECT (array_agg(v ORDER BY t))[1] AS first_value, (array_agg(v ORDER BY t DESC))[1] AS last_value,
               ${drawdownAggregates('v', 'peak')}
             FROM (SELECT t, v, max(v) OVER (ORDER BY t) AS peak
                   FROM unnest($1::int8[], $2::numeric[]) AS p (t, v)) w) s`,
      [points.map((p) => p.time), points.map((p) => p.account_value)],
    );
    const sm = summary[0] ?? {};
    return {
      address: user,
      interval,
      window,
      points,
      summary: {
        points: points.length,
        start_value: sm.start_value ?? null,
        end_value: sm.end_value ?? null,
        change: sm.change ?? null,
        change_pct: sm.change_pct ?? null,
        max_drawdown_usd: sm.max_drawdown_usd ?? null,
        max_drawdown_pct: sm.max_drawdown_pct ?? null,
      },
    };
  }

  /**
   * One row per UTC day with fills or funding in the window's hours (default 30d; window.ts: the first day counts
   * from the hour holding the window's start), oldest first.
   */
  async pnlCalendar({ user, window }: InputOf<typeof PNL_CALENDAR>): Promise<PnlCalendar> {
    const { start, end } = windowBounds(window, this.now());
    const days = `SELECT day, sum(fills)::int AS fills, sum(volume) AS volume, sum(realized_pnl) AS realized_pnl,
        sum(fees) AS fees, sum(funding) AS funding, sum(realized_pnl) - sum(fees) + sum(funding) AS net
      FROM (${windowRows(2, 'address = $1')}) w GROUP BY day`;
    const params = [user, ...windowParams(windowHours(start, end))];
    const { rows } = await this.pool.query<CalendarDay>(
      `SELECT to_char(day, 'YYYY-MM-DD') AS date, ${num('realized_pnl')} AS realized_pnl, ${num('fees')} AS fees,
         ${num('funding')} AS funding, ${num('net')} AS net_pnl,
         ${num('sum(net) OVER (ORDER BY day)')} AS cumulative_net_pnl, fills, ${num('volume')} AS volume,
         ${num('eq.account_value')} AS equity_close
       FROM (${days}) d
       LEFT JOIN LATERAL (SELECT account_value FROM analytics.account_snapshots s
                          WHERE s.address = $1 AND s.time <= (extract(epoch FROM d.day) * 1000)::int8 + ${DAY_MS}
                          ORDER BY time DESC LIMIT 1) eq ON true
       ORDER BY day`,
      params,
    );
    const { rows: totals } = await this.pool.query(
      `SELECT count(*)::int AS days, count(*) FILTER (WHERE net > 0)::int AS profitable_days,
         count(*) FILTER (WHERE net < 0)::int AS losing_days, count(*) FILTER (WHERE net = 0)::int AS flat_days,
         ${num('coalesce(sum(realized_pnl), 0)')} AS realized_pnl, ${num('coalesce(sum(fees), 0)')} AS fees,
         ${num('coalesce(sum(funding), 0)')} AS funding, ${num('coalesce(sum(net), 0)')} AS net_pnl,
         coalesce(sum(fills), 0)::int AS fills, ${num('coalesce(sum(volume), 0)')} AS volume
       FROM (${days}) d`,
      params,
    );
    return { address: user, window, days: rows, totals: totals[0] as PnlCalendar['totals'] };
  }

  /** The best round trips by `sort` (default pnl), 1 to 50 (default 5); open ones unless `includeOpen` is false. */
  async topTrades(q: InputOf<typeof TOP_TRADES>): Promise<Trade[]> {
    const { user, sort, limit } = q;
    const order = {
      pnl: 'r.pnl_now DESC',
      pnl_abs: 'abs(r.pnl_now) DESC',
      notional: 'r.notional DESC',
      loss: 'r.pnl_now ASC',
    }[sort];
    return this.trades(
      `address = $1 ${q.includeOpen === false ? `AND status = 'closed'` : ''}`,
      `${order}, r.opened_at DESC, r.open_seq DESC`,
      [user],
      limit,
    );
  }

  /** Round trips opened in [startTime, endTime], newest first, at most `limit` (1 to 500). */
  async roundTrips(q: InputOf<typeof ROUND_TRIPS>): Promise<Trade[]> {
    return this.trades(
      `address = $1 AND opened_at >= $2 AND opened_at <= $3 AND ($4::text IS NULL OR status = $4)`,
      'r.opened_at DESC, r.open_seq DESC',
      [q.user, q.startTime ?? 0, q.endTime ?? Number.MAX_SAFE_INTEGER, q.status ?? null],
      q.limit,
    );
  }

  private async trades(where: string, order: string, params: unknown[], limit: number): Promise<Trade[]> {
    // An open trip's PnL adds what its remaining position would make at the coin's last fill price. Orders name the
    // subquery's numeric columns (`r.`), not the text the select list prints.
    const { rows } = await this.pool.query<Trade>(
      `SELECT coin, direction, status, ${num('leverage')} AS leverage, ${num('pnl_now')} AS pnl, ${num('pnl')} AS realized_pnl,
         ${num('pnl_now - fees + funding')} AS net_pnl, ${num('fees')} AS fees, ${num('funding')} AS funding,
         ${num('size')} AS size, ${num('notional')} AS notional, ${num('entry_px')} AS entry_px,
         ${num('exit_px')} AS exit_px, fills, opened_at, closed_at
       FROM (SELECT t.*, CASE WHEN t.status = 'open' AND m.px IS NOT NULL
                           THEN t.pnl + (m.px - t.entry_px) * t.position ELSE t.pnl END AS pnl_now
             FROM analytics.round_trips t LEFT JOIN analytics.marks m ON m.coin = t.coin AND t.status = 'open'
             WHERE ${where}) r
       ORDER BY ${order} LIMIT ${limit}`,
      params,
    );
    return rows;
  }

  // ---- builders ----

  /**
   * What the wallets traded in the timeframe (default 7d) through builders other than `builder`, through it, and
   * without one: wallets with external activity first by external volume, then the others in submission order.
   */
  async externalActivity(q: InputOf<typeof EXTERNAL_ACTIVITY>): Promise<ExternalActivity> {
    const { builder, users, timeframe, includeNoBuilder } = q;
    const now = this.now();
    const hours = windowHours(now - TIMEFRAME_MS[timeframe], now);
    const { rows } = await this.pool.query<BuilderActivity & { address: string }>(
      `SELECT address, builder, sum(fills)::int AS fills, ${num('sum(notional)')} AS notional,
         -- coins of each hour are arrays of different lengths: flattened through text, not array_agg
         ARRAY(SELECT DISTINCT c FROM unnest(string_to_array(string_agg(array_to_string(coins, ','), ','), ',')) AS c
               ORDER BY 1) AS coins,
         min(first_fill) AS first_fill, max(last_fill) AS last_fill
       FROM analytics.builder_hourly WHERE address = ANY($1) AND hour >= $2 AND hour < $3
       GROUP BY address, builder ORDER BY address, sum(notional) DESC, builder`,
      [[...new Set(users)], hours.from, hours.to],
    );
    const byWallet = new Map<string, (BuilderActivity & { address: string })[]>();
    for (const r of rows) byWallet.set(r.address, [...(byWallet.get(r.address) ?? []), r]);
    const strip = (r: BuilderActivity & { address: string }) => {
      const { address: _a, builder: _b, ...rest } = r;
      return rest;
    };
    const entries = users.map((user, i) => {
      const all = byWallet.get(user) ?? [];
      const external = all.filter((r) => r.builder !== builder && r.builder !== '');
      const none = all.find((r) => r.builder === '');
      const own = all.find((r) => r.builder === builder);
      const volume = external.reduce((s, r) => s + Number(r.notional), 0);
      const entry: WalletActivity = {
        address: user,
        flagged: external.length > 0,
        external_volume: external.length ? external.map((r) => r.notional).reduce(addDecimal, '0') : '0',
        externalBuilders: external.map(({ address: _a, ...r }) => r),
        noBuilder: includeNoBuilder && none ? strip(none) : null,
        own: own ? strip(own) : null,
      };
      return { entry, volume, i };
    });
    // Flagged wallets first, by external volume (the float only orders; the text is exact).
    entries.sort((a, b) =>
      a.entry.flagged !== b.entry.flagged
        ? a.entry.flagged
          ? -1
          : 1
        : a.entry.flagged
          ? b.volume - a.volume || a.i - b.i
          : a.i - b.i,
    );
    const data = entries.map((e) => e.entry);
    const has = (e: WalletActivity, what: 'noBuilder' | 'own') =>
      (byWallet.get(e.address) ?? []).some((r) => (what === 'own' ? r.builder === builder : r.builder === ''));
    return {
      builder,
      timeframe,
      data,
      summary: {
        wallets: data.length,
        flagged: data.filter((e) => e.flagged).length,
        own_only: data.filter((e) => !e.flagged && has(e, 'own') && !has(e, 'noBuilder')).length,
        no_builder_only: data.filter((e) => !e.flagged && !has(e, 'own') && has(e, 'noBuilder')).length,
        inactive: data.filter((e) => !(byWallet.get(e.address) ?? []).length).length,
      },
    };
  }
}

/** a / b as a decimal with 6 places, trimmed. */
function ratioText(a: number, b: number): string {
  return String(Math.round((a / b) * 1e6) / 1e6);
}
