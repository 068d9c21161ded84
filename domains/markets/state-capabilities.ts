// The markets domain's capabilities of the market's present: mids, metas, contexts, books, HIP-3 snapshots.
import type { Capability } from '../../kit/capability.ts';
import type { MarketsService } from './service/index.ts';

export const STATE_CAPABILITIES: readonly Capability<MarketsService>[] = [];
