// Outcome @key(outcomeId): a two-sided, fully collateralised contract; each side is a coin `#<10·outcome+side>`
// traded between 0.001 and 0.999 and paying the settlement fraction (side 0) or its complement (side 1) of the
// quote token. A side's market (book, trades, candles) is the markets subgraph's Market; its fills are the fills
// capability's field, and Query.outcome the outcome capability's (capabilities.ts).
import { addDecimal, mulDecimal } from '../../../platform/decimal.ts';
import { builder } from '../builder.ts';
import { descriptionFields, type OutcomeRow, sideCoin } from '../service/registry.ts';
import { MarketRef, OutcomeRef, QuestionRef, VenueRef } from './refs.ts';

interface SideParent {
  outcome: OutcomeRow;
  index: number;
}

const OutcomeSideRef = builder.objectRef<SideParent>('OutcomeSide');
OutcomeSideRef.implement({
  description: 'One side of an outcome, a coin of its own',
  fields: (t) => ({
    index: t.exposeInt('index'),
    name: t.string({ resolve: (s) => s.outcome.side_specs[s.index]?.name ?? String(s.index) }),
    coin: t.string({ resolve: (s) => sideCoin(s.outcome.outcome_id, s.index) }),
    market: t.field({
      type: MarketRef,
      description: "The side's market: live book, trades, candles",
      resolve: (s) => ({ coin: sideCoin(s.outcome.outcome_id, s.index) }),
    }),
    lastPx: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'Price of the last trade (0.001 to 0.999); null before the first',
      resolve: async (s, _a, ctx) => {
        const coin = sideCoin(s.outcome.outcome_id, s.index);
        return (await ctx.hip4.lastPrices([coin])).get(coin) ?? null;
      },
    }),
    settlementValue: t.field({
      type: 'Decimal',
      nullable: true,
      description: 'What one unit paid at settlement (the fraction, or its complement on side 1); null if unsettled',
      resolve: (s) => {
        const f = s.outcome.settle_fraction;
        if (f === null) return null;
        return s.index === 0 ? f : addDecimal('1', mulDecimal(f, '-1'));
      },
    }),
  }),
});

OutcomeRef.implement({
  description: 'A HIP-4 outcome: its two sides, question, venue, settlement and trading totals',
  fields: (t) => {
    const field = (key: string) =>
      t.string({ nullable: true, resolve: (o: OutcomeRow) => descriptionFields(o.description)[key] ?? null });
    return {
      outcomeId: t.exposeInt('outcome_id'),
      name: t.exposeString('name'),
      description: t.exposeString('description', { description: 'Pipe-delimited key:value text' }),
      class: field('class'),
      underlying: field('underlying'),
      expiry: field('expiry'),
      targetPrice: field('targetPrice'),
      period: field('period'),
      sides: t.field({
        type: [OutcomeSideRef],
        listSize: { assumedSize: 2 },
        resolve: (o) => o.side_specs.map((_s, index) => ({ outcome: o, index })),
      }),
      question: t.field({
        type: QuestionRef,
        nullable: true,
        resolve: (o, _a, ctx) => (o.question_id === null ? null : ctx.hip4.question(o.question_id)),
      }),
      quoteToken: t.exposeString('quote_token'),
      listedAt: t.expose('block_time', { type: 'Timestamp' }),
      venue: t.field({
        type: VenueRef,
        nullable: true,
        description: 'Null for an oracle-emitted market',
        resolve: (o, _a, ctx) => (o.venue ? ctx.hip4.venue(o.venue) : null),
      }),
      deployer: t.exposeString('deployer', { description: 'Empty for an oracle-emitted market' }),
      settled: t.exposeBoolean('settled'),
      settleFraction: t.expose('settle_fraction', { type: 'Decimal', nullable: true }),
      settledAt: t.expose('settled_at', { type: 'Timestamp', nullable: true }),
      totalFills: t.exposeInt('total_fills', { description: 'Settlement fills excluded' }),
      totalVolume: t.expose('total_volume', { type: 'Decimal', description: 'Notional matched (each match once)' }),
      uniqueUsers: t.exposeInt('unique_users'),
    };
  },
});

builder.asEntity(OutcomeRef, {
  key: builder.selection<{ outcomeId: number }>('outcomeId'),
  resolveReference: (ref, ctx) => ctx.hip4.outcome(ref.outcomeId),
});
