// Every stream ingest knows, by directory name.

import type { StreamName } from '../../wire/node-lines.ts';
import { bookDiffsLoader } from './book.ts';
import { assetCtxsLoader, evmBlocksLoader, hip4RegistryLoader, reservesLoader } from './extra.ts';
import { fillsLoader } from './fills.ts';
import type { StreamLoader } from './loader.ts';
import { miscEventsLoader } from './misc.ts';
import { orderStatusesLoader, twapStatusesLoader } from './orders.ts';

export const LOADERS: Record<StreamName, StreamLoader> = {
  node_fills_by_block: fillsLoader,
  node_order_statuses_by_block: orderStatusesLoader,
  node_raw_book_diffs_by_block: bookDiffsLoader,
  node_twap_statuses_by_block: twapStatusesLoader,
  misc_events_by_block: miscEventsLoader,
  asset_ctxs_by_block: assetCtxsLoader,
  borrow_lend_reserves_by_block: reservesLoader,
  hip4_registry_by_block: hip4RegistryLoader,
  evm_blocks_by_block: evmBlocksLoader,
};
