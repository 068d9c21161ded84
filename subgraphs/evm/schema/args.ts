// Argument checks and shared shapes of the evm fields: every refusal is a FieldError naming the argument
// (subgraphs/serve.ts answers it as BAD_USER_INPUT); offset-paged lists share one page type shape.

import type { ObjectRef } from '@pothos/core';
import { FieldError, isAddress, noNul } from '../../../platform/fields.ts';
import { builder } from '../builder.ts';

/** A 0x address, lowercased. */
export function addressArg(value: string, arg: string): string {
  if (!isAddress(value))
    throw new FieldError(`${arg}: must be a 0x address (40 hex digits), got ${JSON.stringify(value).slice(0, 60)}`);
  return value.toLowerCase();
}

export const textArg = (value: string | null | undefined, arg: string): string | undefined =>
  value == null ? undefined : noNul(value, arg);

/** A record's naive UTC ISO time (compat's form, which the service returns) → epoch ms. */
export const msOf = (naive: string): number => Date.parse(`${naive}Z`);

/** The cost directive of an offset-paged list: `limit` rows in `nodes`. */
export const PAGE_LIST_SIZE = {
  slicingArguments: ['limit'],
  sizedFields: ['nodes'],
  requireOneSlicingArgument: false,
};

/** A page of an offset-paged list: its rows, and whether more follow. */
// biome-ignore lint/suspicious/noExplicitAny: any builder's object ref of T
export function pageType<T>(name: string, node: ObjectRef<any, T>, what: string) {
  return builder.objectRef<{ rows: T[]; hasMore: boolean }>(name).implement({
    description: `A page of ${what}; \`hasMore\` when the next offset holds more`,
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (p) => p.rows }),
      hasMore: t.exposeBoolean('hasMore'),
    }),
  });
}
