// Shared shapes of the evm fields (their arguments are read through the input definitions, service/inputs.ts):
// offset-paged lists share one page type shape.

import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.ts';

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
