// The router's request ids: Hive Gateway's (a client's `x-request-id`, or one it makes; sent on its subgraph
// fetches and in the answer), also known to the pass-through fetches (router/pass-through.ts), which Hive does not
// make, so that a subgraph serves every request of a client under that client request's id. Hive takes any header
// it is sent and echoes it; a client's id is kept only when it passes platform/log.ts's rule (isClientRequestId).
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isClientRequestId, REQUEST_ID_HEADER, requestIdOf } from '../platform/log.ts';

const made = new WeakMap<Request, string>();

/** Hive Gateway's `requestId` option: ids it makes are remembered per request. */
export const routerRequestIds = {
  headerName: REQUEST_ID_HEADER,
  generateRequestId: ({ request }: { request: Request }) => {
    const id = randomUUID();
    made.set(request, id);
    return id;
  },
};

/**
 * Removes a client's `x-request-id` that the rule refuses (too long, or other characters), before Hive reads it: Hive
 * then makes one, as for a request without.
 */
export function dropRefusedRequestId(req: IncomingMessage): void {
  const sent = req.headers[REQUEST_ID_HEADER];
  if (sent !== undefined && !isClientRequestId(sent)) delete req.headers[REQUEST_ID_HEADER];
}

/** The id of a client request to the router. */
export function requestIdOfRequest(request: Request): string {
  return made.get(request) ?? requestIdOf(request.headers.get(REQUEST_ID_HEADER) ?? undefined);
}
