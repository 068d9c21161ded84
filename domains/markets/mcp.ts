// The markets domain's MCP tools not yet declared as capabilities (capabilities.ts): dataCoverage.

import type { McpTool } from '../../kit/domain.ts';
import { NO_INPUT } from './service/inputs.ts';

export const marketsTools: readonly McpTool[] = [
  {
    name: 'markets_data_coverage',
    title: 'Data coverage',
    description:
      'Where each dataset of this service starts and ends (fills, orders, funding, ledger, trades, candles, ...) ' +
      'and from when it is complete: check it before asking for old history.',
    input: NO_INPUT.schema,
    call: async (_args, { services: { markets, coverage } }) => ({ ...(await coverage(markets.now())) }),
  },
];
