// Scalars every subgraph declares the same way (composition merges identical scalars): `Decimal`, an exact
// decimal carried as a string, and `Timestamp`, epoch milliseconds as a JSON number (beyond GraphQL's 32-bit Int).
import {
  GraphQLError,
  type GraphQLSchema,
  Kind,
  specifiedRules,
  type ValidationContext,
  type ValidationRule,
  type ValueNode,
  ValuesOfCorrectTypeRule,
} from 'graphql';
import { graphqlCode } from '../platform/error-codes.ts';
import { MAX_TIME_MS } from '../platform/fields.ts';

const DECIMAL = /^-?\d+(\.\d+)?$/;

function decimal(v: unknown): string {
  if (typeof v === 'string' && DECIMAL.test(v)) return v;
  throw new GraphQLError(`Decimal must be a decimal string such as "123.45", got ${JSON.stringify(v)?.slice(0, 60)}`);
}

function timestamp(v: unknown): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= MAX_TIME_MS) return n;
  const shown = JSON.stringify(v)?.slice(0, 60);
  throw new GraphQLError(`Timestamp must be an integer of epoch milliseconds from 0 to ${MAX_TIME_MS}, got ${shown}`);
}

export const decimalScalar = {
  description: 'An exact decimal number, as a string ("90000.5"); never a float',
  serialize: decimal,
  parseValue: decimal,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind === Kind.STRING) return decimal(ast.value);
    throw new GraphQLError('Decimal literals are strings, e.g. "0.01"');
  },
};

export const timestampScalar = {
  description: 'Milliseconds since the Unix epoch, as a JSON number',
  serialize: timestamp,
  parseValue: timestamp,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind === Kind.INT || ast.kind === Kind.STRING) return timestamp(ast.value);
    throw new GraphQLError('Timestamp literals are integers of epoch milliseconds');
  },
};

/** A JSON value passed through as it is: what the exchange or the node prints (ledger deltas, recorded samples). */
export const jsonScalar = {
  description: 'A JSON value, as the exchange or the node prints it (ledger deltas, recorded market samples)',
  serialize: (v: unknown) => v,
  parseValue: (v: unknown) => v,
};

export type ScalarTypes = {
  Decimal: { Input: string; Output: string };
  Timestamp: { Input: number; Output: number };
  JSON: { Input: unknown; Output: unknown };
};

/**
 * graphql-js's check of literal argument values, with each refusal naming its argument (`endTime: Timestamp must
 * be ...`) and coded BAD_USER_INPUT: on its own it reports a scalar's message alone, which names the type, not the
 * argument a caller got wrong.
 */
export const valuesNamingTheArgument: ValidationRule = (context) => {
  let argument: string | null = null;
  const named: ValidationContext = Object.create(context);
  named.reportError = (error: GraphQLError) =>
    context.reportError(
      argument === null || error.message.startsWith(`${argument}:`)
        ? error
        : new GraphQLError(`${argument}: ${error.message}`, {
            nodes: error.nodes,
            extensions: { ...error.extensions, code: graphqlCode('bad_input') },
          }),
    );
  return {
    ...ValuesOfCorrectTypeRule(named),
    Argument: {
      enter: (node) => {
        argument = node.name.value;
      },
      leave: () => {
        argument = null;
      },
    },
  };
};

type Validate = (
  schema: GraphQLSchema,
  document: never,
  rules?: readonly ValidationRule[],
  ...rest: never[]
) => unknown;

/** The envelop plugin putting valuesNamingTheArgument in place of graphql-js's rule in a subgraph's validation. */
export function useArgumentNamingValidation() {
  return {
    onValidate({ validateFn, setValidationFn }: { validateFn: Validate; setValidationFn: (fn: Validate) => void }) {
      setValidationFn((schema, document, rules, ...rest) =>
        validateFn(
          schema,
          document,
          (rules ?? specifiedRules).map((rule) => (rule === ValuesOfCorrectTypeRule ? valuesNamingTheArgument : rule)),
          ...rest,
        ),
      );
    },
  };
}
