// Scalars every subgraph declares the same way (composition merges identical scalars): `Decimal`, an exact
// decimal carried as a string, and `Timestamp`, epoch milliseconds as a JSON number (beyond GraphQL's 32-bit Int).
import { GraphQLError, Kind, type ValueNode } from 'graphql';

const DECIMAL = /^-?\d+(\.\d+)?$/;

function decimal(v: unknown): string {
  if (typeof v === 'string' && DECIMAL.test(v)) return v;
  throw new GraphQLError(`Decimal must be a decimal string such as "123.45", got ${JSON.stringify(v)}`);
}

function timestamp(v: unknown): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 0) return n;
  throw new GraphQLError(`Timestamp must be a non-negative integer of epoch milliseconds, got ${JSON.stringify(v)}`);
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

export type ScalarTypes = {
  Decimal: { Input: string; Output: string };
  Timestamp: { Input: number; Output: number };
};
