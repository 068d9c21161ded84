// What a GraphQL operation costs (access/costs.ts): one call, plus the per-wallet charge of each field listed in
// GRAPHQL_FIELD_CREDITS that it selects, read from the field's argument (a literal list or a variable).
import {
  type DocumentNode,
  type GraphQLSchema,
  type GraphQLType,
  getNamedType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
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

/** Where operationCredits reads its rules and, to find listed fields below the root, the field types. */
export interface CreditRules {
  /** GRAPHQL_FIELD_CREDITS, unless a test gives another table. */
  table?: typeof GRAPHQL_FIELD_CREDITS;
  /**
   * The supergraph: with it a listed field is found at any depth (`Builder.externalActivity` under `Query.builder`);
   * without it only root fields are.
   */
  schema?: GraphQLSchema;
}

/** What `operationName` of `document` costs. */
export function operationCredits(
  document: DocumentNode,
  operationName?: string | null,
  variables: Record<string, unknown> = {},
  { table = GRAPHQL_FIELD_CREDITS, schema }: CreditRules = {},
): number {
  const operation = operationOf(document, operationName);
  if (!operation) return CALL_CREDITS;
  const fragments = new Map(
    document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
  );
  let credits = CALL_CREDITS;
  // A fragment is walked once per type it is spread into (a cycle is invalid GraphQL, refused before execution).
  const seen = new Set<string>();
  const walk = (set: SelectionSetNode, typeName: string) => {
    const type = schema?.getType(typeName);
    const fields = type && 'getFields' in type ? (type.getFields() as Record<string, { type: GraphQLType }>) : null;
    for (const s of set.selections) {
      if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, s.typeCondition?.name.value ?? typeName);
      else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(s.name.value);
        if (fragment && !seen.has(`${fragment.name.value}@${typeName}`)) {
          seen.add(`${fragment.name.value}@${typeName}`);
          walk(fragment.selectionSet, fragment.typeCondition.name.value);
        }
      } else {
        const rule = table[`${typeName}.${s.name.value}`];
        if (rule) {
          const arg = s.arguments?.find((a) => a.name.value === rule.perWalletArg);
          credits += perWalletCredits(arg ? argumentValue(arg.value, variables) : undefined) - CALL_CREDITS;
        }
        const field = fields?.[s.name.value];
        if (s.selectionSet && field) walk(s.selectionSet, getNamedType(field.type).name);
      }
    }
  };
  walk(operation.selectionSet, ROOT_TYPE[operation.operation]);
  return credits;
}
