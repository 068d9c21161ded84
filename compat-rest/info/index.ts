// The /info dispatcher: one table of `type` → handler across domains (each domain's `compat.info`, domains.ts),
// shared by POST /info and WS `post`.
import { DOMAIN_LIST } from '../../domains.ts';
import { FieldError } from '../../platform/fields.ts';
import { unionOf } from '../../subgraphs/domain.ts';
import type { CompatServices, InfoHandler, InfoReply } from './types.ts';

export const INFO_TYPES: Readonly<Record<string, InfoHandler>> = unionOf(
  '/info type',
  DOMAIN_LIST.map((d) => [d.name, d.compat.info]),
);

/**
 * Runs the handler of `body.type`. Bad input throws a FieldError, an unreachable node an UpstreamError; each
 * transport answers them through envelopes.ts's errorAnswer.
 */
export async function dispatchInfo(body: unknown, services: CompatServices): Promise<InfoReply> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new FieldError('JSON body required');
  const request = body as Record<string, unknown>;
  const type = request.type;
  if (typeof type !== 'string' || type === '') throw new FieldError('type: must be a non-empty string');
  const handler = Object.hasOwn(INFO_TYPES, type) ? INFO_TYPES[type] : undefined;
  if (!handler) throw new FieldError(`Unknown type: ${type}`);
  return handler(request, services);
}
