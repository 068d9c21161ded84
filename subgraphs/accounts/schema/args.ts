// Argument checks of the accounts fields: every refusal, ours or the service's, is a FieldError whose message names
// the argument (subgraphs/serve.ts answers it as a GraphQL error with code BAD_USER_INPUT).
import { FieldError, intWithin, isAddress, noNul } from '../../../platform/fields.ts';
import { InvalidQueryError } from '../service/index.ts';

const CLOID = /^0x[0-9a-fA-F]{32}$/;

export function badInput(arg: string, rule: string): FieldError {
  // A service's rule may name its own parameter ("cursor: ..."): the caller's argument is named instead.
  const own = /^[A-Za-z_]\w*: /.exec(rule);
  return new FieldError(rule.startsWith(arg) ? rule : `${arg}: ${own ? rule.slice(own[0].length) : rule}`);
}

/** A 0x address, lowercased (the exchange prints addresses lowercase). */
export function addressArg(value: string, arg = 'address'): string {
  if (!isAddress(value)) throw badInput(arg, `must be a 0x address (40 hex digits), got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

/** Free text that reaches Postgres (a coin name): without a NUL character, which no text parameter can hold. */
export const textArg = (value: string, arg: string): string => noNul(value, arg);

export function cloidArg(value: string, arg = 'cloid'): string {
  if (!CLOID.test(value)) throw badInput(arg, `must be 0x and 32 hex digits, got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

export const intArg = (value: number, arg: string, min: number, max: number): number => intWithin(arg, value, min, max);

/** An ID argument holding a u64 the exchange prints as a JSON number (oid, twapId): a safe integer here. */
export function idArg(value: string | number, arg: string): number {
  const n = Number(value);
  if (!/^\d{1,16}$/.test(String(value)) || !Number.isSafeInteger(n)) {
    throw badInput(arg, `must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** Runs a service call whose InvalidQueryError (sync or async) is the caller's fault in `arg`: renamed to it. */
export function serviceInput<T>(arg: string, call: () => T): T {
  const refuse = (err: unknown) => {
    throw err instanceof InvalidQueryError ? badInput(arg, err.message) : err;
  };
  try {
    const out = call();
    return (out instanceof Promise ? out.catch(refuse) : out) as T;
  } catch (err) {
    return refuse(err);
  }
}
