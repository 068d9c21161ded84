// What the markets domain offers other parts besides its service (which accounts receives, `needs: ['markets']`):
// what the archive import (ingest/archive/) writes with, the series of a recorded book measured as the live sampler
// measures one and the closed candles of trades loaded behind the present; the tables export publishes (trades,
// candles, books). The one file of this folder another domain, ingest or export imports, and the one way they reach
// markets' tables (test/layers.test.ts).
export { backfillCandles } from './service/candles.ts';
export { BOOKS_EXPORT, CANDLES_EXPORT, TRADES_EXPORT } from './service/export-tables.ts';
export { REGISTER_HISTORY_COINS } from './service/history.ts';
export { recordedBookSeries } from './service/recorded-book.ts';
