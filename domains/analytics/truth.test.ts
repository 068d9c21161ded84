// Issue 30, analytics by the spec's definitions: every analytics route over REST on a hand-computed history
// (test/analytics-truth-history.ts: open positions, funding paid and received while open, a loss day, an account
// whose equity falls below zero and one whose equity is never positive, fills on both sides of a window's edge).
// Every expected number is worked by hand in the comments from the fills and payments listed in the history file;
// truth-interfaces.test.ts asks the same over GraphQL and MCP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { H } from '../../test/analytics-history.ts';
import {
  CAROL,
  DAVE,
  E1,
  E2,
  E3,
  ERIN,
  FRANK,
  M,
  NOW,
  OTHER,
  OWN,
  startTruthStack,
  type TruthStack,
  WEEK_AGO,
} from '../../test/analytics-truth-history.ts';

let stack: TruthStack;
beforeAll(async () => {
  stack = await startTruthStack();
});
afterAll(() => stack?.stop());

/** Naive UTC ISO, as the path routes print times. */
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 23);
const rest: TruthStack['rest'] = (...args) => stack.rest(...args);

describe('the PnL calendar counts every fill, fee and funding payment of its days, closed or not', () => {
  it('CAROL: an opening-only day, a loss day, a day with positions left open', async () => {
    const body = await rest('GET', `/users/${CAROL}/pnl-calendar`);
    expect(body.data).toEqual([
      // E1: c1 opens BTC 2 @ 100 (still open): 1 fill, volume 2 × 100 = 200, fee 0.2; BTC funding −0.5.
      // net = 0 − 0.2 − 0.5 = −0.7. Close of the day: the E1 03:00 snapshot, 1000 − 0.2 − 0.5 = 999.3.
      {
        date: '2026-10-05',
        realized_pnl: '0',
        fees: '0.2',
        funding: '-0.5',
        net_pnl: '-0.7',
        cumulative_net_pnl: '-0.7',
        fills: 1,
        volume: '200',
        equity_close: '999.3',
      },
      // E2: c2 opens ETH short 1 @ 200 (fee 0.2), c3 closes it @ 230 (closedPnl −30, fee 0.23): 2 fills, volume
      // 200 + 230 = 430, fees 0.43; funding −0.6 (BTC) + 0.4 (DOGE, a coin no stored fill traded) = −0.2.
      // net = −30 − 0.43 − 0.2 = −30.63; cumulative −0.7 − 30.63 = −31.33.
      // Close: E2 09:00 snapshot: 999.3 − 0.6 (f) − 0.2 (c2) − 30 − 0.23 (c3) + 0.4 (f) = 968.67 (no open PnL:
      // BTC still marked 100).
      {
        date: '2026-10-06',
        realized_pnl: '-30',
        fees: '0.43',
        funding: '-0.2',
        net_pnl: '-30.63',
        cumulative_net_pnl: '-31.33',
        fills: 2,
        volume: '430',
        equity_close: '968.67',
      },
      // E3 (to 12:30): c4 opens SOL 10 @ 5 (fee 0.05, volume 50), c5 sells 4 @ 6 (closedPnl 4, fee 0.024, volume
      // 24), SOL left open; BTC funding +0.3. net = 4 − 0.074 + 0.3 = 4.226; cumulative −31.33 + 4.226 = −27.104.
      // Close: E3 12:00 snapshot: cash 968.67 + 0.3 − 0.05 + 4 − 0.024 = 972.896, plus SOL's open PnL
      // (6 − 5) × 6 = 6 (BTC still at 100 then) = 978.896.
      {
        date: '2026-10-07',
        realized_pnl: '4',
        fees: '0.074',
        funding: '0.3',
        net_pnl: '4.226',
        cumulative_net_pnl: '-27.104',
        fills: 2,
        volume: '74',
        equity_close: '978.896',
      },
    ]);
    // Totals: realized −30 + 4 = −26; fees 0.2 + 0.43 + 0.074 = 0.704; funding −0.5 − 0.2 + 0.3 = −0.4;
    // net −26 − 0.704 − 0.4 = −27.104; one profitable day (E3), two losing.
    expect(body.totals).toEqual({
      days: 3,
      profitable_days: 1,
      losing_days: 2,
      flat_days: 0,
      realized_pnl: '-26',
      fees: '0.704',
      funding: '-0.4',
      net_pnl: '-27.104',
      fills: 5,
      volume: '704',
    });
  });

  it('FRANK: 7d counts from the hour holding NOW − 7 days (09-30 12:00), 30d the whole day', async () => {
    // 7d: f2 (12:10, in the hour holding 12:30), f3, f4; f1 (11:40) is an hour earlier. Fills 3, volume
    // 95 + 180 + 185 = 460, realized 5 + 5 = 10, fees 0.095 + 0.18 + 0.185 = 0.46, net 9.54. Close: the 15:00
    // snapshot: −0.09 + 5 − 0.095 − 0.18 + 5 − 0.185 = 9.45.
    const week = await rest('GET', `/users/${FRANK}/pnl-calendar?window=7d`);
    expect(week.data).toEqual([
      {
        date: '2026-09-30',
        realized_pnl: '10',
        fees: '0.46',
        funding: '0',
        net_pnl: '9.54',
        cumulative_net_pnl: '9.54',
        fills: 3,
        volume: '460',
        equity_close: '9.45',
      },
    ]);
    // 30d: f1 too: 4 fills, volume 550, fees 0.55, net 10 − 0.55 = 9.45.
    const month = await rest('GET', `/users/${FRANK}/pnl-calendar?window=30d`);
    expect(month.totals).toMatchObject({ fills: 4, volume: '550', fees: '0.55', net_pnl: '9.45', days: 1 });
  });
});

describe('performance and batch performance', () => {
  it('CAROL over all: sums of every fill and payment, the closed trip, both drawdowns in their units', async () => {
    const { data } = await rest('GET', `/users/${CAROL}/performance?window=all`);
    expect(data).toEqual({
      address: CAROL,
      window: 'all',
      start_time: null,
      end_time: iso(NOW),
      fills: 5,
      volume: '704',
      realized_pnl: '-26',
      total_fees: '0.704',
      total_funding: '-0.4',
      net_pnl: '-27.104',
      // One trip closed (T2, ETH: −30 − 0.43 = −30.43, a loss); T1 (BTC) and T3 (SOL) are open.
      trades: 1,
      wins: 0,
      losses: 1,
      win_rate: '0',
      // Opened: T1 long, T2 short, T3 long → 2 / 1; long_pct 2 / 3 × 100 = 66.666667.
      longs: 2,
      shorts: 1,
      long_short_ratio: '2',
      long_pct: '66.666667',
      best_trade_pnl: '-30',
      worst_trade_pnl: '-30',
      account_value: '978.896',
      // The realized curve: 0 → −30.43 (peak 0).
      max_drawdown: '30.43',
      // Equity: peak 1000 (E1 01:00), trough 968.27 (E2 06:00, after c3): 31.73, 31.73 / 1000 × 100 = 3.173 %.
      equity_max_drawdown_usd: '31.73',
      equity_max_drawdown_pct: '3.173',
      // Hour closes with an event: E1 01, 02, 03; E2 03, 04, 06, 09; E3 03, 10, 12.
      equity_snapshots: 10,
    });
  });

  it('a custom window counts every hour overlapping it whole (E2 05:50 → 08:10: hours 05:00 to 08:59)', async () => {
    const { data } = await rest(
      'GET',
      `/users/${CAROL}/performance?start_time=${iso(E2 + 5 * H + 50 * M)}&end_time=${iso(E2 + 8 * H + 10 * M)}`,
    );
    expect(data).toMatchObject({
      window: 'custom',
      // c3 (05:40, in the hour holding the start): 1 fill, 230, −30, fee 0.23; DOGE funding +0.4 at 08:00.
      // net −30 − 0.23 + 0.4 = −29.83. T2 closed at 05:40: one trade, a loss; none opened in these hours.
      fills: 1,
      volume: '230',
      realized_pnl: '-30',
      total_fees: '0.23',
      total_funding: '0.4',
      net_pnl: '-29.83',
      trades: 1,
      losses: 1,
      longs: 0,
      shorts: 0,
      long_short_ratio: null,
      long_pct: null,
      // Equity points are instants: only the E2 06:00 snapshot (968.27) is inside [05:50, 08:10].
      equity_snapshots: 1,
      equity_max_drawdown_usd: '0',
      equity_max_drawdown_pct: '0',
      account_value: '968.27',
    });
  });

  it('batch: drawdown percent bounded by its definition; a never-positive equity has none', async () => {
    const { data } = await rest('POST', '/users/batch/performance', {
      addresses: [ERIN, DAVE, CAROL],
      window: 'all',
      include_drawdown: true,
    });
    expect(data.map((p: { address: string }) => p.address)).toEqual([ERIN, DAVE, CAROL]);
    // ERIN: e1, e2, e3: volume 19.8 + 19.5 + 19.6 = 58.9, realized −0.3, fees 0.3, net −0.6. Equity: −0.5 (E2
    // 11:00: −0.1 − 0.3 − 0.1), −0.6 (E2 13:00: −0.1 more, AVAX long at its own price): falls 0.1 from a peak that
    // is not positive, so no percent.
    expect(data[0]).toMatchObject({
      fills: 3,
      volume: '58.9',
      realized_pnl: '-0.3',
      total_fees: '0.3',
      net_pnl: '-0.6',
      trades: 1,
      losses: 1,
      longs: 2,
      long_pct: '100',
      max_drawdown: '0.5',
      equity_max_drawdown_usd: '0.1',
      equity_max_drawdown_pct: null,
      equity_snapshots: 2,
    });
    // DAVE: DOGE funding +1 (E1 07:00 snapshot: 1), AVAX bought (fee 0.2: 0.8 at 08:00), sold at a 3 loss (fee
    // 0.197: −2.397 at 09:00), BTC bought E3 12:10 (fee 0.103; its hour not closed yet). Volume 200 + 197 + 103 =
    // 500, fees 0.5, net −3 − 0.5 + 1 = −2.5. Equity falls 1 − (−2.397) = 3.397 from a peak of 1: the whole peak
    // is lost, 100 % (a trough below zero counts as zero; unbounded it read 339.7 %).
    expect(data[1]).toMatchObject({
      fills: 3,
      volume: '500',
      realized_pnl: '-3',
      total_fees: '0.5',
      total_funding: '1',
      net_pnl: '-2.5',
      best_trade_pnl: '-3',
      max_drawdown: '3.397',
      account_value: '-2.397',
      equity_max_drawdown_usd: '3.397',
      equity_max_drawdown_pct: '100',
      equity_snapshots: 3,
    });
    expect(data[2]).toMatchObject({ net_pnl: '-27.104', equity_max_drawdown_pct: '3.173' });
    // Without include_drawdown: the same sums, no drawdown fields.
    const plain = await rest('POST', '/users/batch/performance', { addresses: [CAROL], window: 'all' });
    expect(plain.data[0]).not.toHaveProperty('equity_max_drawdown_pct');
    expect(data[2]).toMatchObject(plain.data[0]);
  });

  it('FRANK over 7d is the leaderboard 7d row: one window rule', async () => {
    const { data } = await rest('GET', `/users/${FRANK}/performance?window=7d`);
    // f2, f3, f4 (see the calendar): both trips closed in these hours, both wins (5 − 0.185 = 4.815 and
    // 5 − 0.365 = 4.635).
    expect(data).toMatchObject({
      fills: 3,
      volume: '460',
      net_pnl: '9.54',
      trades: 2,
      wins: 2,
      start_time: iso(WEEK_AGO),
    });
    const board = await rest('GET', '/users/leaderboard?window=7d&by=pnl');
    const row = board.data.find((r: { address: string }) => r.address === FRANK);
    expect(row).toMatchObject({ fills: 3, volume: '460', pnl: '9.54', wins: 2, trades: 2 });
  });
});

describe('top trades include open positions at the current mark', () => {
  // T1 BTC long 2 @ 100, open: marked at 103 (DAVE's d3, BTC's last fill) → unrealized (103 − 100) × 2 = 6;
  //   fees 0.2, funding −0.5 − 0.6 + 0.3 = −0.8 → net 6 − 0.2 − 0.8 = 5. Leverage 200 / 1000 (E1 01:00 snapshot).
  // T2 ETH short 1: 200 → 230, closed: −30, fees 0.43, net −30.43.
  // T3 SOL long 10 @ 5, 4 sold @ 6 (realized 4), 6 open at 6: 4 + (6 − 5) × 6 = 10; fees 0.074 → net 9.926.
  const T1 = {
    coin: 'BTC',
    direction: 'long',
    status: 'open',
    leverage: '0.2',
    pnl: '6',
    realized_pnl: '0',
    net_pnl: '5',
    fees: '0.2',
    funding: '-0.8',
    size: '2',
    notional: '200',
    entry_px: '100',
    exit_px: null,
    fills: 1,
    opened_at: iso(E1 + H + 15 * M),
  };
  const T3 = {
    coin: 'SOL',
    status: 'open',
    pnl: '10',
    realized_pnl: '4',
    net_pnl: '9.926',
    fees: '0.074',
    size: '10',
    notional: '50',
    entry_px: '5',
    exit_px: '6',
    fills: 2,
  };

  it('by pnl: SOL (10), BTC (6), ETH (−30); open ones carry no closed_at', async () => {
    const { data } = await rest('GET', `/users/${CAROL}/top-trades`);
    expect(data.map((t: { coin: string }) => t.coin)).toEqual(['SOL', 'BTC', 'ETH']);
    expect(data[0]).toMatchObject(T3);
    expect(data[0]).not.toHaveProperty('closed_at');
    expect(data[1]).toEqual(T1);
    expect(data[2]).toMatchObject({
      coin: 'ETH',
      direction: 'short',
      status: 'closed',
      pnl: '-30',
      net_pnl: '-30.43',
      fees: '0.43',
      entry_px: '200',
      exit_px: '230',
      closed_at: iso(E2 + 5 * H + 40 * M),
    });
  });

  it('include_open=false leaves the closed trip; the other sorts', async () => {
    const coins = async (q: string) =>
      (await rest('GET', `/users/${CAROL}/top-trades${q}`)).data.map((t: { coin: string }) => t.coin);
    expect(await coins('?include_open=false')).toEqual(['ETH']);
    expect(await coins('?sort=loss')).toEqual(['ETH', 'BTC', 'SOL']);
    expect(await coins('?sort=pnl_abs')).toEqual(['ETH', 'SOL', 'BTC']);
    // notional: ETH 200 and BTC 200 tie, the later opened first; SOL 50.
    expect(await coins('?sort=notional')).toEqual(['ETH', 'BTC', 'SOL']);
  });
});

describe('equity history: percent units, drawdown peak to trough', () => {
  it('CAROL: ten hourly points, three daily closes', async () => {
    const body = await rest('GET', `/users/${CAROL}/equity-history`);
    expect(body.data.map((p: { account_value: string }) => p.account_value)).toEqual([
      '1000',
      '999.8',
      '999.3',
      '998.7',
      '998.5',
      '968.27',
      '968.67',
      '968.97',
      '968.92',
      '978.896',
    ]);
    // The last point: SOL 6 × 6 + BTC 2 × 100 = 236 of positions, 6 unrealized, cash 972.896.
    expect(body.data[9]).toMatchObject({
      time: iso(E3 + 12 * H),
      cash: '972.896',
      position_value: '236',
      unrealized_pnl: '6',
      n_positions: 2,
    });
    // change 978.896 − 1000 = −21.104 = −2.1104 %; drawdown 1000 − 968.27 = 31.73 = 3.173 %.
    expect(body.summary).toEqual({
      points: 10,
      start_value: '1000',
      end_value: '978.896',
      change: '-21.104',
      change_pct: '-2.1104',
      max_drawdown_usd: '31.73',
      max_drawdown_pct: '3.173',
    });
    const daily = await rest('GET', `/users/${CAROL}/equity-history?interval=1d`);
    expect(daily.data.map((p: { account_value: string }) => p.account_value)).toEqual(['999.3', '968.67', '978.896']);
  });

  it('DAVE falls below zero: 100 %; ERIN never positive: no percent', async () => {
    const dave = await rest('GET', `/users/${DAVE}/equity-history`);
    // 1 → 0.8 → −2.397: change −3.397 = −339.7 % of the start; the drawdown is the whole peak.
    expect(dave.summary).toEqual({
      points: 3,
      start_value: '1',
      end_value: '-2.397',
      change: '-3.397',
      change_pct: '-339.7',
      max_drawdown_usd: '3.397',
      max_drawdown_pct: '100',
    });
    const erin = await rest('GET', `/users/${ERIN}/equity-history`);
    expect(erin.summary).toEqual({
      points: 2,
      start_value: '-0.5',
      end_value: '-0.6',
      change: '-0.1',
      change_pct: null,
      max_drawdown_usd: '0.1',
      max_drawdown_pct: null,
    });
  });
});

describe('leaderboard', () => {
  it('7d is NOW − 7 days by the hour rule (FRANK in), pnl_pct in percent', async () => {
    const body = await rest('GET', '/users/leaderboard?window=7d&by=pnl');
    // pnl: FRANK 9.54; ERIN −0.6; DAVE −2.5; CAROL −27.104.
    expect(body.data.map((r: { address: string; pnl: string }) => [r.address, r.pnl])).toEqual([
      [FRANK, '9.54'],
      [ERIN, '-0.6'],
      [DAVE, '-2.5'],
      [CAROL, '-27.104'],
    ]);
    expect(body.total_count).toBe(4);
    // pnl_pct = net / volume × 100: FRANK 9.54 / 460 = 2.0739130…%; ERIN −0.6 / 58.9 = −1.0186757…%; DAVE
    // −2.5 / 500 = −0.5 %; CAROL −27.104 / 704 = −3.85 %.
    expect(body.data.map((r: { pnl_pct: string }) => r.pnl_pct)).toEqual(['2.073913', '-1.018676', '-0.5', '-3.85']);
    expect(body.data[3]).toEqual({
      rank: 4,
      address: CAROL,
      fills: 5,
      trades: 1,
      volume: '704',
      realized_pnl: '-26',
      fees: '0.704',
      funding: '-0.4',
      pnl: '-27.104',
      wins: 0,
      losses: 1,
      win_rate: '0',
      pnl_pct: '-3.85',
      account_value: '978.896',
      unrealized_pnl: '6',
      refreshed_at: iso(NOW),
    });
    // all: FRANK's f1 too: 550 of volume, 9.45; 9.45 / 550 = 1.7181818…%.
    const all = await rest('GET', '/users/leaderboard?window=all&by=volume');
    expect(all.data.map((r: { address: string; volume: string }) => [r.address, r.volume])).toEqual([
      [CAROL, '704'],
      [FRANK, '550'],
      [DAVE, '500'],
      [ERIN, '58.9'],
    ]);
    expect(all.data[1]).toMatchObject({ pnl: '9.45', pnl_pct: '1.718182' });
  });

  it('live: the hours overlapping the last 24 (from E2 12:00)', async () => {
    const body = await rest('GET', '/users/leaderboard?by=volume&hours=24');
    // DAVE d3 103; CAROL c4 + c5 = 74 (and BTC funding +0.3: 4 − 0.074 + 0.3 = 4.226); ERIN e3 (E2 12:20, in
    // the hour holding E2 12:30) 19.6.
    expect(
      body.data.map((r: { address: string; volume: string; pnl: string }) => [r.address, r.volume, r.pnl]),
    ).toEqual([
      [DAVE, '103', '-0.103'],
      [CAROL, '74', '4.226'],
      [ERIN, '19.6', '-0.1'],
    ]);
  });
});

describe('builder external activity', () => {
  const ask = (timeframe: string) =>
    rest('POST', `/builders/${OWN}/external-activity`, { addresses: [ERIN, DAVE, CAROL], timeframe });

  it('7d: CAROL through OTHER (c2, c4), her own (c1) and none (c3, c5); DAVE through OTHER (d3)', async () => {
    const body = await ask('7d');
    expect(body.data.map((w: { address: string }) => w.address)).toEqual([CAROL, DAVE, ERIN]);
    expect(body.data[0]).toEqual({
      address: CAROL,
      flagged: true,
      external_volume: '250',
      externalBuilders: [
        {
          builder: OTHER,
          fills: 2,
          notional: '250', // 200 + 10 × 5
          coins: ['ETH', 'SOL'],
          first_fill: iso(E2 + 3 * H + 20 * M),
          last_fill: iso(E3 + 9 * H + 10 * M),
        },
      ],
      noBuilder: {
        fills: 2,
        notional: '254', // 230 + 4 × 6
        coins: ['ETH', 'SOL'],
        first_fill: iso(E2 + 5 * H + 40 * M),
        last_fill: iso(E3 + 11 * H + 45 * M),
      },
      own: {
        fills: 1,
        notional: '200',
        coins: ['BTC'],
        first_fill: iso(E1 + H + 15 * M),
        last_fill: iso(E1 + H + 15 * M),
      },
    });
    expect(body.data[1]).toMatchObject({ flagged: true, external_volume: '103' });
    expect(body.data[2]).toMatchObject({ flagged: false, noBuilder: { fills: 3, notional: '58.9' } });
    expect(body.summary).toEqual({ wallets: 3, flagged: 2, own_only: 0, no_builder_only: 1, inactive: 0 });
  });

  it('1h and 24h: the hours overlapping the timeframe, as every analytics window', async () => {
    // 1h: 11:30 → 12:30, hours 11:00 and 12:00: DAVE's d3 (OTHER), CAROL's c5 (no builder).
    const hour = await ask('1h');
    expect(hour.data.map((w: { address: string; flagged: boolean }) => [w.address, w.flagged])).toEqual([
      [DAVE, true],
      [ERIN, false],
      [CAROL, false],
    ]);
    expect(hour.summary).toEqual({ wallets: 3, flagged: 1, own_only: 0, no_builder_only: 1, inactive: 1 });
    // 24h: from E2 12:00: DAVE 103 through OTHER, CAROL 50 (c4) through OTHER and c5 without; ERIN's e3 (12:20).
    const day = await ask('24h');
    expect(day.data.map((w: { address: string; external_volume: string }) => [w.address, w.external_volume])).toEqual([
      [DAVE, '103'],
      [CAROL, '50'],
      [ERIN, '0'],
    ]);
    expect(day.data[2].noBuilder).toMatchObject({ fills: 1, notional: '19.6' });
  });
});
