// The renaming of a service's refusal to the argument the caller gave (the arguments themselves are read through the
// input definitions, service/inputs.ts): every refusal is a FieldError whose message names the argument
// (kit/serve.ts answers it as a GraphQL error, BAD_USER_INPUT).
import { FieldError } from '../../../platform/fields.ts';
import { InvalidQueryError } from '../service/shared.ts';

export function badInput(arg: string, rule: string): FieldError {
  // A service's rule may name its own parameter ("cursor: ..."): the caller's argument is named instead.
  const own = /^[A-Za-z_]\w*: /.exec(rule);
  return new FieldError(rule.startsWith(arg) ? rule : `${arg}: ${own ? rule.slice(own[0].length) : rule}`);
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
