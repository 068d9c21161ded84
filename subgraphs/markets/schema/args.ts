// Argument checks shared by the markets fields: a refusal is a GraphQL error naming the argument and its rule.
import { GraphQLError } from 'graphql';

export function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/** `value` when it is an integer from 1 to `max`, else a BAD_USER_INPUT error naming `name`. */
export function limitArg(value: number, max: number, name = 'limit'): number {
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw badInput(`${name}: must be an integer from 1 to ${max}`);
  return value;
}
