// The evm domain's live capabilities (kit/capability.ts `live`): a user's ledger events, backstop transfers, blocks
// and a token's transfers as they are indexed, each resumed from the event bus's log after a cursor.
import type { Capability } from '../../kit/capability.ts';
import { liveCapability } from '../../kit/capability.ts';
import { defineInput } from '../../kit/input.ts';
import { BackstopTransferRef } from './schema/backstop.ts';
import { BlockRef } from './schema/chain.ts';
import { TokenTransferRef } from './schema/token.ts';
import { LedgerEventRef } from './schema/user.ts';
import type { EvmService } from './service/index.ts';
import { BACKSTOP_TRANSFER_STREAM, LEDGER_EVENT_STREAM, TOKEN_TRANSFER_STREAM } from './service/inputs.ts';

/** Every block: nothing to choose. */
const BLOCKS = defineInput({});

export const LIVE_CAPABILITIES: readonly Capability<EvmService>[] = [
  liveCapability({
    name: 'userLedgerEventsStream',
    input: LEDGER_EVENT_STREAM,
    live: {
      name: 'userLedgerEvents',
      resumable: ({ streams }, { user }) => streams.userLedgerEvents(user),
      subscription: {
        type: LedgerEventRef,
        batch: 10,
        description: "The user's ledger events as they happen, one batch per block (history: User.ledgerEvents)",
      },
    },
  }),
  liveCapability({
    name: 'backstopTransfersStream',
    input: BACKSTOP_TRANSFER_STREAM,
    live: {
      name: 'backstopTransfers',
      resumable: ({ streams }, filter) => streams.backstopTransfers(filter),
      subscription: {
        type: BackstopTransferRef,
        batch: 5,
        description: 'Backstop principal transfers as they happen, one batch per block',
      },
    },
  }),
  liveCapability({
    name: 'blocksStream',
    input: BLOCKS,
    live: {
      name: 'newBlocks',
      resumable: ({ streams }) => streams.blocks(),
      subscription: { type: BlockRef, description: 'Each HyperEVM block as it is indexed' },
    },
  }),
  liveCapability({
    name: 'tokenTransfersStream',
    input: TOKEN_TRANSFER_STREAM,
    live: {
      name: 'tokenTransfers',
      resumable: ({ streams }, { token }) => streams.tokenTransfers(token),
      subscription: {
        type: TokenTransferRef,
        batch: 20,
        description: "A token's transfers as they happen, one batch per block",
      },
    },
  }),
];
