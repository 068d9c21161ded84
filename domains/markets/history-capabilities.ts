// The markets domain's capabilities of its stored history: candles, trades, funding, reserves, the history
// datasets and their coverage.
import type { Capability } from '../../kit/capability.ts';
import type { MarketsService } from './service/index.ts';

export const HISTORY_CAPABILITIES: readonly Capability<MarketsService>[] = [];
