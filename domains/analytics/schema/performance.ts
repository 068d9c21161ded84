// Performance, EquityHistory, PnlCalendar and Trade: a user's derived history as the analytics service answers it
// (service/index.ts says how each is computed); User's fields (user.ts) return them.
import { builder } from '../builder.ts';
import type { CalendarDay, EquityHistory, EquityPoint, Performance, PnlCalendar, Trade } from '../service/answers.ts';

const DRAWDOWN_PCT =
  'Largest fall from a running peak as a percent of that peak, 0 to 100 (a trough below zero counts as zero); ' +
  'null when the account value was never positive';

export const PerformanceRef = builder.objectRef<Performance>('Performance').implement({
  description: 'Trading performance over a window: sums of fills and funding, closed round trips, drawdowns',
  fields: (t) => ({
    window: t.exposeString('window', { description: '7d, 30d, 90d, all, or custom (startTime/endTime given)' }),
    startTime: t.expose('start_time', { type: 'Timestamp', nullable: true }),
    endTime: t.expose('end_time', { type: 'Timestamp' }),
    fills: t.exposeInt('fills'),
    volume: t.expose('volume', { type: 'Decimal' }),
    realizedPnl: t.expose('realized_pnl', { type: 'Decimal', description: 'Σ closedPnl of the fills' }),
    totalFees: t.expose('total_fees', { type: 'Decimal' }),
    totalFunding: t.expose('total_funding', { type: 'Decimal', description: '+ = received' }),
    netPnl: t.expose('net_pnl', { type: 'Decimal', description: 'realized − fees + funding' }),
    trades: t.exposeInt('trades', { description: 'Round trips closed in the window' }),
    wins: t.exposeInt('wins', { description: 'Closed round trips with a positive net PnL' }),
    losses: t.exposeInt('losses'),
    winRate: t.expose('win_rate', { type: 'Decimal', nullable: true }),
    longs: t.exposeInt('longs', { description: 'Round trips opened long in the window' }),
    shorts: t.exposeInt('shorts'),
    longShortRatio: t.expose('long_short_ratio', { type: 'Decimal', nullable: true }),
    longPct: t.expose('long_pct', { type: 'Decimal', nullable: true, description: 'Longs / trips opened, in percent' }),
    bestTradePnl: t.expose('best_trade_pnl', { type: 'Decimal', nullable: true }),
    worstTradePnl: t.expose('worst_trade_pnl', { type: 'Decimal', nullable: true }),
    accountValue: t.expose('account_value', { type: 'Decimal', nullable: true }),
    maxDrawdown: t.expose('max_drawdown', {
      type: 'Decimal',
      nullable: true,
      description: 'Largest fall of the cumulative net PnL of closed round trips (null without includeDrawdown)',
    }),
    equityMaxDrawdownUsd: t.expose('equity_max_drawdown_usd', {
      type: 'Decimal',
      nullable: true,
      description: 'Largest peak-to-trough fall of the account value over the snapshots in the window',
    }),
    equityMaxDrawdownPct: t.expose('equity_max_drawdown_pct', {
      type: 'Decimal',
      nullable: true,
      description: DRAWDOWN_PCT,
    }),
    equitySnapshots: t.exposeInt('equity_snapshots', { nullable: true }),
  }),
});

const EquityPointRef = builder.objectRef<EquityPoint>('EquityPoint').implement({
  fields: (t) => ({
    time: t.expose('time', { type: 'Timestamp', description: 'The close of the hour the point values' }),
    accountValue: t.expose('account_value', { type: 'Decimal' }),
    cash: t.expose('cash', { type: 'Decimal' }),
    positionValue: t.expose('position_value', { type: 'Decimal' }),
    unrealizedPnl: t.expose('unrealized_pnl', { type: 'Decimal' }),
    accountLeverage: t.expose('account_leverage', { type: 'Decimal', nullable: true }),
    nPositions: t.exposeInt('n_positions'),
  }),
});

const EquitySummaryRef = builder.objectRef<EquityHistory['summary']>('EquitySummary').implement({
  fields: (t) => ({
    points: t.exposeInt('points'),
    startValue: t.expose('start_value', { type: 'Decimal', nullable: true }),
    endValue: t.expose('end_value', { type: 'Decimal', nullable: true }),
    change: t.expose('change', { type: 'Decimal', nullable: true }),
    changePct: t.expose('change_pct', {
      type: 'Decimal',
      nullable: true,
      description: 'Change / start value, in percent (null when the start value is not positive)',
    }),
    maxDrawdownUsd: t.expose('max_drawdown_usd', { type: 'Decimal', nullable: true }),
    maxDrawdownPct: t.expose('max_drawdown_pct', { type: 'Decimal', nullable: true, description: DRAWDOWN_PCT }),
  }),
});

export const EquityHistoryRef = builder.objectRef<EquityHistory>('EquityHistory').implement({
  fields: (t) => ({
    interval: t.exposeString('interval'),
    window: t.exposeString('window'),
    points: t.field({ type: [EquityPointRef], resolve: (h) => h.points }),
    summary: t.field({ type: EquitySummaryRef, resolve: (h) => h.summary }),
  }),
});

const CalendarDayRef = builder.objectRef<CalendarDay>('PnlCalendarDay').implement({
  fields: (t) => ({
    date: t.exposeString('date', { description: 'YYYY-MM-DD (UTC)' }),
    realizedPnl: t.expose('realized_pnl', { type: 'Decimal' }),
    fees: t.expose('fees', { type: 'Decimal' }),
    funding: t.expose('funding', { type: 'Decimal', description: '+ = received' }),
    netPnl: t.expose('net_pnl', { type: 'Decimal', description: 'realized − fees + funding' }),
    cumulativeNetPnl: t.expose('cumulative_net_pnl', { type: 'Decimal' }),
    fills: t.exposeInt('fills'),
    volume: t.expose('volume', { type: 'Decimal' }),
    equityClose: t.expose('equity_close', { type: 'Decimal', nullable: true }),
  }),
});

const CalendarTotalsRef = builder.objectRef<PnlCalendar['totals']>('PnlCalendarTotals').implement({
  fields: (t) => ({
    days: t.exposeInt('days'),
    profitableDays: t.exposeInt('profitable_days'),
    losingDays: t.exposeInt('losing_days'),
    flatDays: t.exposeInt('flat_days'),
    realizedPnl: t.expose('realized_pnl', { type: 'Decimal' }),
    fees: t.expose('fees', { type: 'Decimal' }),
    funding: t.expose('funding', { type: 'Decimal' }),
    netPnl: t.expose('net_pnl', { type: 'Decimal' }),
    fills: t.exposeInt('fills'),
    volume: t.expose('volume', { type: 'Decimal' }),
  }),
});

export const PnlCalendarRef = builder.objectRef<PnlCalendar>('PnlCalendar').implement({
  fields: (t) => ({
    window: t.exposeString('window'),
    days: t.field({ type: [CalendarDayRef], resolve: (c) => c.days }),
    totals: t.field({ type: CalendarTotalsRef, resolve: (c) => c.totals }),
  }),
});

export const TradeRef = builder.objectRef<Trade>('RoundTrip').implement({
  description: 'A position from open (from flat) to flat, or still open',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    direction: t.exposeString('direction', { description: '"long" or "short"' }),
    status: t.exposeString('status', { description: '"open" or "closed"' }),
    leverage: t.expose('leverage', {
      type: 'Decimal',
      nullable: true,
      description: 'Opening notional over the account value of the snapshot before the open',
    }),
    pnl: t.expose('pnl', {
      type: 'Decimal',
      description: 'Σ closedPnl; an open trip adds its unrealized PnL at the last fill price',
    }),
    realizedPnl: t.expose('realized_pnl', { type: 'Decimal', description: 'Σ closedPnl of its fills so far' }),
    netPnl: t.expose('net_pnl', { type: 'Decimal', description: 'pnl − fees + funding' }),
    fees: t.expose('fees', { type: 'Decimal' }),
    funding: t.expose('funding', { type: 'Decimal', description: 'Funding while open; + = received' }),
    size: t.expose('size', { type: 'Decimal', description: 'Peak absolute size' }),
    notional: t.expose('notional', { type: 'Decimal', description: 'Entry price × size' }),
    entryPx: t.expose('entry_px', { type: 'Decimal' }),
    exitPx: t.expose('exit_px', { type: 'Decimal', nullable: true }),
    fills: t.exposeInt('fills'),
    openedAt: t.expose('opened_at', { type: 'Timestamp' }),
    closedAt: t.expose('closed_at', { type: 'Timestamp', nullable: true }),
  }),
});
