// The EVM domain's live streams, each defined once (GraphQL subscriptions adapt them): new blocks, the transfers of
// one token, one user's ledger events, and backstop principal transfers.

import type { BackstopTransferRow, EvmBlockRow, TokenTransferRow } from '../../../db/rows/evm.ts';
import type { EventBus } from '../../../events/bus.ts';
import { type ResumableStream, topicStream } from '../../../kit/live.ts';
import { type LedgerEvent, toLedgerEvent } from '../../accounts/port.ts';
import { backstopTransferMatches } from './backstop.ts';
import type { BackstopTransferFilter } from './inputs.ts';

/** A batch's items that pass `keep`, as one event; none → no event. */
const batchOf =
  <T, R>(keep: (item: T) => boolean, map: (item: T) => R) =>
  (items: readonly T[]): R[][] => {
    const out = items.filter(keep).map(map);
    return out.length ? [out] : [];
  };

export class EvmStreams {
  constructor(private readonly bus: EventBus) {}

  /** Each block as ingest commits it. */
  blocks(): ResumableStream<EvmBlockRow> {
    return topicStream(this.bus, 'evmBlocks', (rows) => rows);
  }

  /** The transfers of one token (lowercase address), one batch per block. */
  tokenTransfers(token: string): ResumableStream<TokenTransferRow[]> {
    return topicStream(
      this.bus,
      'evmTransfers',
      batchOf(
        (r: TokenTransferRow) => r.token === token,
        (r) => r,
      ),
      token,
    );
  }

  /** One user's (lowercase) ledger events, one batch per block. */
  userLedgerEvents(user: string): ResumableStream<LedgerEvent[]> {
    return topicStream(
      this.bus,
      'ledgerUpdates',
      batchOf((r) => r.address === user, toLedgerEvent),
      user,
    );
  }

  /** Backstop principal transfers matching the filters, one batch per block. */
  backstopTransfers(q: BackstopTransferFilter): ResumableStream<BackstopTransferRow[]> {
    return topicStream(
      this.bus,
      'backstopTransfers',
      batchOf(
        (r: BackstopTransferRow) => backstopTransferMatches(r, q),
        (r) => r,
      ),
    );
  }
}
