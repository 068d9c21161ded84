// The markets subgraph as an HTTP + graphql-ws server (port 4001 by default).
import { serveSubgraph } from '../serve.ts';
import { marketsSchema } from './schema/index.ts';
import type { MarketsService } from './service/index.ts';

export function startMarketsSubgraph(markets: MarketsService, opts: { port: number; host?: string }) {
  return serveSubgraph('markets', marketsSchema, { ...opts, context: { markets } });
}
