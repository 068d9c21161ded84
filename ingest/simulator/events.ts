// The events one block produces, per output stream. Generators push into these arrays; the simulator writes one
// line per non-empty stream and clears them for the next block.
import { STREAMS, type StreamEvents, type StreamName } from '../../wire/node-lines.ts';

export type StreamBuffers = { [K in StreamName]: StreamEvents[K][] };

export class BlockEvents {
  blockNumber = 0;
  timeMs = 0;
  /** Block time as the node prints it; event `time` strings reuse it. */
  iso = '';
  /** When the node wrote the block (`local_time`). */
  localIso = '';
  readonly streams: StreamBuffers = {
    node_fills_by_block: [],
    node_order_statuses_by_block: [],
    node_raw_book_diffs_by_block: [],
    node_twap_statuses_by_block: [],
    misc_events_by_block: [],
    asset_ctxs_by_block: [],
    borrow_lend_reserves_by_block: [],
    hip4_registry_by_block: [],
    evm_blocks_by_block: [],
  };

  get fills(): StreamEvents['node_fills_by_block'][] {
    return this.streams.node_fills_by_block;
  }
  get statuses(): StreamEvents['node_order_statuses_by_block'][] {
    return this.streams.node_order_statuses_by_block;
  }
  get diffs(): StreamEvents['node_raw_book_diffs_by_block'][] {
    return this.streams.node_raw_book_diffs_by_block;
  }
  get twaps(): StreamEvents['node_twap_statuses_by_block'][] {
    return this.streams.node_twap_statuses_by_block;
  }
  get misc(): StreamEvents['misc_events_by_block'][] {
    return this.streams.misc_events_by_block;
  }

  clear(): void {
    for (const name of STREAMS) this.streams[name].length = 0;
  }
}
