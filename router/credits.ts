// What a GraphQL operation costs (access/costs.ts): one call, plus the per-wallet charge of each root field listed
// in GRAPHQL_FIELD_CREDITS that it selects, read from the field's argument (a literal list or a variable).
import { type DocumentNode, Kind, type OperationDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';
import { CALL_CREDITS, GRAPHQL_FIELD_CREDITS, perWalletCredits } from '../access/costs.ts';

const ROOT_TYPE = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' } as const;

/** A literal or variable argument as a plain value (lists and scalars; enough to count wallets). */
function argumentValue(node: ValueNode, variables: Record<string, unknown>): unknown {
  switch (node.kind) {
    case Kind.VARIABLE:
      return variables[node.name.value];
    case Kind.LIST:
      return node.values.map((v) => argumentValue(v, variables));
    case Kind.NULL:
      return null;
    case Kind.OBJECT:
      return {};
    default:
      return 'value' in node ? node.value : undefined;
  }
}

/** The operation that runs: the named one, or the only one. */
function operationOf(document: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
}

/** What `operationName` of `document` costs; `table` is GRAPHQL_FIELD_CREDITS (another one in tests). */
export function operationCredits(
  document: DocumentNode,
  operationName?: string | null,
  variables: Record<string, unknown> = {},
  table: typeof GRAPHQL_FIELD_CREDITS = GRAPHQL_FIELD_CREDITS,
): number {
  const operation = operationOf(document, operationName);
  if (!operation) return CALL_CREDITS;
  const rootType = ROOT_TYPE[operation.operation];
  const fragments = new Map(
    document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
  );
  let credits = CALL_CREDITS;
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(s.name.value);
        if (fragment && !seen.has(fragment.name.value)) {
          seen.add(fragment.name.value);
          walk(fragment.selectionSet);
        }
      } else {
        const rule = table[`${rootType}.${s.name.value}`];
        if (!rule) continue;
        const arg = s.arguments?.find((a) => a.name.value === rule.perWalletArg);
        credits += perWalletCredits(arg ? argumentValue(arg.value, variables) : undefined) - CALL_CREDITS;
      }
    }
  };
  walk(operation.selectionSet);
  return credits;
}
