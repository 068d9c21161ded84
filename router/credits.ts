// What a GraphQL operation costs: the REST price of the rows it can read, by the rule stated in access/costs.ts,
// read from the operation as it will run (variables coerced with their defaults, arguments with theirs) against the
// supergraph, with every alias and fragment spread counted, and fragments priced once each (memoised) so that
// pricing stays linear in the document's size however often they are spread.
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLField,
  GraphQLIncludeDirective,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getVariableValues,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import {
  CALL_CREDITS,
  CREDITS_PER_WALLET,
  GRAPHQL_FIELD_CREDITS,
  GRAPHQL_REPLAY_FIELDS,
  REPLAY_MAX_MS,
  replayCredits,
  walletCount,
} from '../access/costs.ts';
import { graphqlCode } from '../platform/error-codes.ts';
import { FieldError } from '../platform/fields.ts';

/** The operation that runs: the named one, or the only one. */
function operationOf(document: DocumentNode, operationName?: string | null): OperationDefinitionNode | undefined {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
}

/** A field's `@listSize` (the IBM cost directive the subgraph schemas declare), as far as pricing reads it. */
interface ListSize {
  assumedSize?: number;
  slicingArguments?: string[];
  sizedFields?: string[];
}

const listSizes = new WeakMap<GraphQLField<unknown, unknown>, ListSize | null>();

function listSizeOf(field: GraphQLField<unknown, unknown>): ListSize | null {
  let size = listSizes.get(field);
  if (size !== undefined) return size;
  const directive = field.astNode?.directives?.find((d) => d.name.value === 'listSize');
  size = null;
  if (directive) {
    const arg = (name: string): ValueNode | undefined => directive.arguments?.find((a) => a.name.value === name)?.value;
    const strings = (v: ValueNode | undefined) =>
      v?.kind === Kind.LIST ? v.values.flatMap((s) => (s.kind === Kind.STRING ? [s.value] : [])) : undefined;
    const assumed = arg('assumedSize');
    size = {
      ...(assumed?.kind === Kind.INT ? { assumedSize: Number(assumed.value) } : {}),
      ...(strings(arg('slicingArguments')) ? { slicingArguments: strings(arg('slicingArguments')) } : {}),
      ...(strings(arg('sizedFields')) ? { sizedFields: strings(arg('sizedFields')) } : {}),
    };
  }
  listSizes.set(field, size);
  return size;
}

/** How many elements a list field's answer can hold: its page size argument, else its assumed size, else 1. */
function elementsOf(size: ListSize | null, args: Record<string, unknown>): number {
  for (const name of size?.slicingArguments ?? []) {
    const value = args[name];
    if (typeof value === 'number' && Number.isFinite(value)) return Math.max(0, value);
  }
  return size?.assumedSize ?? 1;
}

/** Child fields of a page type (`edges`, `nodes`) that hold as many elements as its field's `@listSize` says. */
interface Sized {
  fields: readonly string[];
  elements: number;
}

/** Where operationCredits reads its rules and the field types. */
export interface CreditRules {
  /** The supergraph (the router's schema). */
  schema: GraphQLSchema;
  /** GRAPHQL_FIELD_CREDITS, unless a test gives another table. */
  table?: typeof GRAPHQL_FIELD_CREDITS;
}

/**
 * What `operationName` of `document` costs with the request's `variables`, or the error refusing it before any
 * charge (a batch field outside its wallet bounds: 400, code BAD_USER_INPUT). An operation that will not run (no
 * such operation, variables that do not coerce) costs 0: the executor answers its error.
 */
export function operationCredits(
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
  { schema, table = GRAPHQL_FIELD_CREDITS }: CreditRules,
): number | GraphQLError {
  const operation = operationOf(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return 0;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables, { maxErrors: 1 });
  if (coerced.errors) return 0;
  const values = coerced.coerced;
  const fragments = new Map(
    document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])),
  );
  // A fragment's price depends only on its text and on the page size its enclosing field gives `edges`/`nodes`.
  const fragmentCredits = new Map<string, number>();

  const runs = (node: FieldNode | { directives?: FieldNode['directives'] }) =>
    !getDirectiveValues(GraphQLSkipDirective, node, values)?.if &&
    getDirectiveValues(GraphQLIncludeDirective, node, values)?.if !== false;

  const fieldCredits = (node: FieldNode, type: GraphQLCompositeType): number => {
    if (!isObjectType(type) && !isInterfaceType(type)) return 0;
    const field = type.getFields()[node.name.value];
    if (!field) return 0;
    let args: Record<string, unknown> = {};
    try {
      if (field.args.length > 0) args = getArgumentValues(field, node, values);
    } catch {
      return 0; // the executor refuses the field: it reads nothing
    }
    if (type === root && GRAPHQL_REPLAY_FIELDS.has(`${type.name}.${field.name}`)) {
      const { start, end } = args;
      if (typeof start !== 'number' || typeof end !== 'number' || end <= start || end - start > REPLAY_MAX_MS) return 0;
      return replayCredits(end - start);
    }
    const perWallet = table[`${type.name}.${field.name}`];
    const size = listSizeOf(field);
    let price = type === root || field.args.length > 0 ? CALL_CREDITS : 0;
    let elements = 1;
    let sized: Sized | undefined;
    if (perWallet) {
      const wallets = args[perWallet.perWalletArg];
      elements = walletCount(Array.isArray(wallets) ? wallets : [], `${field.name}(${perWallet.perWalletArg})`);
      price = CREDITS_PER_WALLET * elements;
    } else if (size?.sizedFields) {
      sized = { fields: size.sizedFields, elements: elementsOf(size, args) };
    } else if (isListType(getNullableType(field.type))) {
      elements = elementsOf(size, args);
    }
    const named = getNamedType(field.type);
    const nested = node.selectionSet && isCompositeType(named) ? setCredits(node.selectionSet, named, sized) : 0;
    // A lookup (one object, not a page) is the call of what is charged inside it: user(address) { fills } is one.
    const lookup = !perWallet && !size && !isListType(getNullableType(field.type));
    if (lookup && nested > 0) price = 0;
    return price + elements * nested;
  };

  const fragmentSpreadCredits = (fragment: FragmentDefinitionNode, sized: Sized | undefined): number => {
    const memo = `${fragment.name.value}|${sized ? `${sized.fields.join(',')}=${sized.elements}` : ''}`;
    const known = fragmentCredits.get(memo);
    if (known !== undefined) return known;
    fragmentCredits.set(memo, 0); // a cycle is invalid GraphQL (refused before execution); it cannot loop here
    const type = schema.getType(fragment.typeCondition.name.value);
    const credits = isCompositeType(type) ? setCredits(fragment.selectionSet, type, sized) : 0;
    fragmentCredits.set(memo, credits);
    return credits;
  };

  const setCredits = (set: SelectionSetNode, type: GraphQLCompositeType, sized: Sized | undefined): number => {
    let credits = 0;
    for (const s of set.selections) {
      if (!runs(s)) continue;
      if (s.kind === Kind.FIELD) {
        const times = sized?.fields.includes(s.name.value) ? sized.elements : 1;
        credits += times * fieldCredits(s, type);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        const condition = s.typeCondition ? schema.getType(s.typeCondition.name.value) : type;
        if (isCompositeType(condition)) credits += setCredits(s.selectionSet, condition, sized);
      } else {
        const fragment = fragments.get(s.name.value);
        if (fragment) credits += fragmentSpreadCredits(fragment, sized);
      }
    }
    return credits;
  };

  try {
    const credits = setCredits(operation.selectionSet, root, undefined);
    // Beyond any key's credits anyway; kept an integer Postgres takes.
    return Math.min(Number.MAX_SAFE_INTEGER, Math.max(CALL_CREDITS, credits));
  } catch (err) {
    if (!(err instanceof FieldError)) throw err;
    return new GraphQLError(err.message, { extensions: { code: graphqlCode(err.code), http: { status: 400 } } });
  }
}
