// What a stream parser is: it turns one block line's events into rows and live events on a batch, or throws
// FieldError. Everything a block has in common is in BlockContext.

import type { StreamName } from '../../wire/node-lines.ts';
import type { Batch } from '../batch.ts';

export interface BlockContext {
  blockNumber: number;
  blockTime: number; // ms
}

export interface StreamLoader {
  stream: StreamName;
  /** Not stored: ingest tails it from the current end and only publishes it. */
  liveOnly?: boolean;
  /**
   * Its rows update earlier ones (a settlement updates an outcome registered before it): loaded in block order only.
   * A lane following the present holds it while a backfill of the same stream is still loading.
   */
  ordered?: boolean;
  loadBlock(ctx: BlockContext, events: unknown[], batch: Batch): void;
}
