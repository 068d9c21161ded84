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
  loadBlock(ctx: BlockContext, events: unknown[], batch: Batch): void;
}
