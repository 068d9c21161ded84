// The /info dispatcher: one table of `type` → handler across domains (each domain's `compat.info`, domains.ts),
// shared by POST /info and WS `post`.
import { DOMAIN_LIST } from '../../domains.ts';
import { FieldError } from '../../platform/fields.ts';
import { UpstreamError } from '../../platform/upstream.ts';
import { unionOf } from '../../subgraphs/domain.ts';
import { HttpError } from '../errors.ts';
import type { CompatServices, InfoHandler, InfoReply } from './types.ts';

export const INFO_TYPES: Readonly<Record<string, InfoHandler>> = unionOf(
  '/info type',
  DOMAIN_LIST.map((d) => [d.name, d.compat.info]),
);

/** Runs the handler of `body.type`; throws HttpError (400 for bad input, 502 for an unreachable node). */
export async function dispatchInfo(body: unknown, services: CompatServices): Promise<InfoReply> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new HttpError(400, 'JSON body required');
  const request = body as Record<string, unknown>;
  const type = request.type;
  if (typeof type !== 'string' || type === '') throw new HttpError(400, 'type: must be a non-empty string');
  const handler = Object.hasOwn(INFO_TYPES, type) ? INFO_TYPES[type] : undefined;
  if (!handler) throw new HttpError(400, `Unknown type: ${type}`);
  try {
    return await handler(request, services);
  } catch (err) {
    if (err instanceof FieldError) throw new HttpError(400, err.message);
    if (err instanceof UpstreamError) {
      throw new HttpError(502, `${err.reached ? 'Upstream error' : 'Upstream unreachable'}: ${err.message}`);
    }
    throw err;
  }
}
