// The types of what the service holds over time, whose fields its capabilities declare (history-capabilities.ts):
// dataCoverage, the market-history archive's dates (availableDates) and a coin's archived samples.
import type { BackfillCoverage, Coverage, DatasetCoverage } from '../../../platform/coverage.ts';
import { builder } from '../builder.ts';
import { HISTORY_DATASET_NAMES, HISTORY_SERIES_NAMES, type HistoryDataset } from '../service/history.ts';
import { MarketRef } from './market.ts';

const DatasetCoverageRef = builder.objectRef<DatasetCoverage & { name: string }>('DatasetCoverage').implement({
  description: 'One dataset: where its complete coverage starts, its latest event, and how far behind it is',
  fields: (t) => ({
    name: t.exposeString('name'),
    start: t.expose('start', { type: 'Timestamp', nullable: true }),
    latest: t.expose('latest', { type: 'Timestamp', nullable: true }),
    delaySeconds: t.exposeFloat('delaySeconds', { nullable: true }),
  }),
});

const StreamProgressRef = builder.objectRef<{ stream: string; through: number }>('BackfillStreamProgress').implement({
  fields: (t) => ({
    stream: t.exposeString('stream'),
    through: t.expose('through', { type: 'Timestamp', description: 'Every older hour of the stream is loaded' }),
  }),
});

const BackfillCoverageRef = builder.objectRef<BackfillCoverage>('BackfillCoverage').implement({
  description: 'A backfill still loading history behind the present',
  fields: (t) => ({
    lane: t.exposeString('lane'),
    until: t.expose('until', { type: 'Timestamp', description: 'The present holds everything from here on' }),
    loadedThrough: t.field({
      type: [StreamProgressRef],
      resolve: (b) => Object.entries(b.loadedThrough).map(([stream, through]) => ({ stream, through })),
    }),
  }),
});

export const DataCoverageRef = builder.objectRef<Coverage>('DataCoverage').implement({
  description: "The service's coverage (the dataCoverage /info type): check it before asking for old history",
  fields: (t) => ({
    region: t.exposeString('region'),
    datasets: t.field({
      type: [DatasetCoverageRef],
      resolve: (c) => Object.entries(c.datasets).map(([name, d]) => ({ name, ...d })),
    }),
    backfills: t.field({ type: [BackfillCoverageRef], resolve: (c) => c.backfills }),
  }),
});

export const HistoryDatasetEnum = builder.enumType('HistoryDataset', { values: HISTORY_DATASET_NAMES });
export const HistorySeriesEnum = builder.enumType('HistorySeries', { values: HISTORY_SERIES_NAMES });

export const AvailableDatesRef = builder
  .objectRef<{ coin: string; dataset: HistoryDataset; dates: string[] }>('AvailableDates')
  .implement({
    description: 'The UTC dates (YYYY-MM-DD, ascending) on which a dataset holds data for a coin',
    fields: (t) => ({
      coin: t.exposeString('coin'),
      market: t.field({ type: MarketRef, resolve: (d) => ({ coin: d.coin }) }),
      dataset: t.field({ type: HistoryDatasetEnum, resolve: (d) => d.dataset }),
      dates: t.exposeStringList('dates'),
    }),
  });

/** availableDates' answer (`{coin: {dataset: dates}}`) as a list of one coin's dataset each. */
export const listedDates = (dates: Partial<Record<string, Partial<Record<HistoryDataset, string[]>>>>) =>
  Object.entries(dates).flatMap(([coin, byDataset = {}]) =>
    Object.entries(byDataset).map(([dataset, days]) => ({
      coin,
      dataset: dataset as HistoryDataset,
      dates: days ?? [],
    })),
  );

export const HistoryPageRef = builder
  .objectRef<{ rows: unknown[]; hasMore: boolean; nextCursor: string | null }>('MarketHistoryPage')
  .implement({
    description: 'Archived samples of one series, newest first, as `/market/<series>/{coin}` gives them',
    fields: (t) => ({
      samples: t.field({ type: ['JSON'], resolve: (p) => p.rows }),
      hasMore: t.exposeBoolean('hasMore'),
      nextCursor: t.exposeString('nextCursor', {
        nullable: true,
        description: "The page's oldest sample time: pass it as `cursor` for the samples before it",
      }),
    }),
  });
