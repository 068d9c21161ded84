// Bad input at the router: what its own validation must catch before the query planner sees a document, and the
// subgraphs' refusals of a subscription's arguments passed on to the client as they were sent.
import { type ASTNode, GraphQLError, Kind, type ValidationRule } from 'graphql';
import { graphqlCode } from '../platform/error-codes.ts';

/** The argument, input field or variable an AST node sits in, for an error message; "argument" when none. */
function argumentOf(ancestors: readonly (ASTNode | readonly ASTNode[])[]): string {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const node = ancestors[i] as ASTNode;
    if (node.kind === Kind.ARGUMENT || node.kind === Kind.OBJECT_FIELD) return node.name.value;
    if (node.kind === Kind.VARIABLE_DEFINITION) return `$${node.variable.name.value}`;
  }
  return 'argument';
}

/**
 * Integer literals beyond a safe integer: no argument takes one (`Int` is 32-bit, `Timestamp` a safe integer), and
 * the query planner's parser fails on those beyond 64 bits, which the runtime would answer as an internal error.
 * Refused at validation instead, naming the argument.
 */
export const safeIntegerLiterals: ValidationRule = (context) => ({
  IntValue(node, _key, parent, _path, ancestors) {
    if (Number.isSafeInteger(Number(node.value))) return;
    const arg = argumentOf([...ancestors, parent as ASTNode]);
    context.reportError(
      new GraphQLError(`${arg}: the integer ${node.value.slice(0, 40)} is out of range (at most 2^53 - 1)`, {
        nodes: node,
        extensions: { code: graphqlCode('bad_input') },
      }),
    );
  },
});

/** The envelop plugin adding safeIntegerLiterals to the router's validation. */
export function useSafeIntegerLiterals() {
  return {
    onValidate({ addValidationRule }: { addValidationRule: (rule: ValidationRule) => void }) {
      addValidationRule(safeIntegerLiterals);
    },
  };
}

/**
 * A subgraph that refuses a subscription outright (its arguments fail validation: a malformed `Decimal` literal)
 * answers graphql-ws `error` with its formatted errors; the runtime wraps them in a DOWNSTREAM_SERVICE_ERROR without
 * a message, which would be masked as unexpected. The subgraph's first error is passed on instead, as a subgraph's
 * errors in results are (maskRouterError), tagged with the subgraph's name.
 */
export function downstreamRefusal(error: unknown): unknown {
  if (!(error instanceof GraphQLError) || error.extensions?.code !== 'DOWNSTREAM_SERVICE_ERROR') return error;
  const sent = (error.originalError as unknown as { message?: unknown; extensions?: Record<string, unknown> }[])?.[0];
  if (!Array.isArray(error.originalError) || typeof sent?.message !== 'string') return error;
  // The subgraph's HTTP hint (`http.status`) is its own transport's, not this answer's.
  const { http: _http, ...extensions } = sent.extensions ?? {};
  return {
    message: sent.message,
    path: error.path,
    extensions: { ...extensions, serviceName: error.extensions.serviceName },
  };
}
