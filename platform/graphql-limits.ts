// Bounds on one GraphQL operation, the same for the router and the subgraphs: how many field selections it would
// execute, checked before validation and planning, and how long its execution may take.
//
// Depth and token limits do not bound the work: fragments that each spread the next twice stay shallow and short
// while the operation they expand to doubles per level (24 levels, 2^24 selections; the router's planner took
// 19.7 s and 790 MB at 20 levels and grew past 11 GB at 24). The count below expands fragments as execution would,
// but counts each fragment once (memoised), so counting is linear in the document whatever it expands to.
import { type DocumentNode, type FragmentDefinitionNode, GraphQLError, Kind, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { graphqlCode, statusOf } from './error-codes.ts';

/**
 * Field selections an operation may execute, fragments expanded and aliases counted. The largest operations sent
 * to the service are well below it: GraphiQL's introspection query 229, the widest test query 56, the benches' 18.
 * A document within the router's token limit (2000) reaches it only by repeating fields, aliases or fragments.
 */
export const MAX_OPERATION_FIELDS = 1000;

/**
 * The subgraphs' own bound: the router's planned fetches repeat key fields and add `__typename` to what the client
 * selected, so a subgraph allows twice the router's (it is reached only through the router).
 */
export const MAX_SUBGRAPH_OPERATION_FIELDS = 2 * MAX_OPERATION_FIELDS;

/**
 * How long a query or mutation may execute (subscriptions are bounded by their setup only): a bound for runaway
 * work, not a latency target. 15 s cut legitimate fan-outs short on a loaded 2-core machine (24 concurrent queries
 * each reading two traders' account states took 16.8 s in a CI run).
 */
export const OPERATION_TIMEOUT_MS = 30_000;

/**
 * The field selections the largest operation of `document` would execute: every field node counted once per place
 * it is reached (an alias is another field; a fragment spread twice counts twice), each fragment's count computed
 * once. A fragment that spreads itself (invalid, refused by validation afterwards) counts 0 on its second visit.
 */
export function executedFieldCount(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const counted = new Map<string, number>();
  const counting = new Set<string>();
  const fragmentCount = (name: string): number => {
    const known = counted.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (!fragment || counting.has(name)) return 0;
    counting.add(name);
    const n = selectionCount(fragment.selectionSet);
    counting.delete(name);
    counted.set(name, n);
    return n;
  };
  const selectionCount = (set: SelectionSetNode | undefined): number => {
    let n = 0;
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) n += 1 + selectionCount(s.selectionSet);
      else if (s.kind === Kind.INLINE_FRAGMENT) n += selectionCount(s.selectionSet);
      else n += fragmentCount(s.name.value);
    }
    return n;
  };
  let largest = 0;
  for (const d of document.definitions) {
    if (d.kind === Kind.OPERATION_DEFINITION) largest = Math.max(largest, selectionCount(d.selectionSet));
  }
  return largest;
}

/**
 * The refusal of an operation over `max` field selections, naming the limit and its value: a 400 over HTTP, also
 * under `accept: application/json`, where yoga answers other validation errors 200 (`spec: false` says so).
 */
export function operationTooLarge(count: number, max: number): GraphQLError {
  return new GraphQLError(
    `Operation too large: it selects ${count} fields with its fragments expanded and aliases counted; ` +
      `the limit is ${max} field selections per operation`,
    { extensions: { code: graphqlCode('bad_input'), http: { status: 400, spec: false } } },
  );
}

/** The answer of a query or mutation that ran out of time. */
export function operationTimedOut(ms: number): GraphQLError {
  return new GraphQLError(`Operation timed out: it ran longer than ${ms} ms`, {
    extensions: { code: graphqlCode('timeout'), http: { status: statusOf('timeout') } },
  });
}

/**
 * The envelop plugin of both bounds (router and subgraphs): the field count before validation (which would expand
 * fragments itself, and before the router's planner), and the timeout around a query's or mutation's execution.
 * Subscriptions run as long as their client stays.
 */
export function useOperationBounds(opts: { maxFields: number; timeoutMs: number }): Plugin {
  return {
    onValidate({ params, setResult }) {
      const count = executedFieldCount(params.documentAST);
      if (count > opts.maxFields) setResult([operationTooLarge(count, opts.maxFields)]);
    },
    onExecute({ executeFn, setExecuteFn }) {
      // A race, not an abort signal in the arguments: the router's executor adds a listener per fetch to a signal it
      // is given (node then warns of a leak past ten); what is still running is left to the subgraphs' own bound.
      setExecuteFn((args) => {
        let timer: NodeJS.Timeout | undefined;
        const expired = new Promise<{ errors: GraphQLError[] }>((resolve) => {
          timer = setTimeout(() => resolve({ errors: [operationTimedOut(opts.timeoutMs)] }), opts.timeoutMs);
        });
        return Promise.race([Promise.resolve(executeFn(args)), expired]).finally(() => clearTimeout(timer));
      });
    },
  };
}
