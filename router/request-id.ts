// The router's request ids: Hive Gateway's (a client's `x-request-id`, or one it makes; sent on its subgraph
// fetches and in the answer), also known to the pass-through fetches (router/pass-through.ts), which Hive does not
// make, so that a subgraph serves every request of a client under that client request's id.
import { randomUUID } from 'node:crypto';
import { REQUEST_ID_HEADER, requestIdOf } from '../platform/log.ts';

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

/** The id of a client request to the router. */
export function requestIdOfRequest(request: Request): string {
  return made.get(request) ?? requestIdOf(request.headers.get(REQUEST_ID_HEADER) ?? undefined);
}
