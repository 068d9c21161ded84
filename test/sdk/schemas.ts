// Response shapes of the exchange's SDK, checked at run time: the SDK ships them as TypeScript types only, so a
// JSON Schema is generated from its .d.ts files (strict: no extra keys, exact tuples, its @pattern tags) and
// validated with Ajv, as the SDK's own test suite does.
import path from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { createGenerator, type SchemaGenerator } from 'ts-json-schema-generator';

const METHODS = path.join(import.meta.dirname, 'node_modules/@nktkas/hyperliquid/esm/api');
const ajv = new Ajv({ allErrors: true, strict: false });
const cache = new Map<string, ValidateFunction>();
/**
 * One generator over every method's .d.ts, made on first use: building its TypeScript program is the cost (seconds,
 * once per file's process, where a program per method cost as much for each of the ~40 types checked); each type's
 * schema from it is the same as from a program of its own file.
 */
let generator: SchemaGenerator | undefined;

function validator(typeName: string): ValidateFunction {
  const known = cache.get(typeName);
  if (known) return known;
  generator ??= createGenerator({
    path: path.join(METHODS, '{info,subscription}/_methods/*.d.ts'),
    jsDoc: 'extended',
    skipTypeCheck: true,
    additionalProperties: false,
    strictTuples: true,
    expose: 'all',
    topRef: true,
  });
  const compiled = ajv.compile(generator.createSchema(typeName));
  cache.set(typeName, compiled);
  return compiled;
}

function check(v: ValidateFunction, body: unknown, what: string): void {
  if (!v(body)) {
    const errors = (v.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
    throw new Error(
      `${what} does not match the SDK's type:\n  ${errors.join('\n  ')}\n  body: ${JSON.stringify(body).slice(0, 400)}`,
    );
  }
}

/**
 * Fields the service adds to the exchange's answers (documented in the README), per method: each element must carry
 * them, equal to the exchange's own fields they repeat; they are taken off before the strict check of the rest.
 */
const DOCUMENTED_ADDITIONS: Record<string, (body: unknown) => unknown> = {
  // Funding payments: the spec's top-level coin, usdc and szi (§2.3), the same as in `delta`.
  userFunding: (body) =>
    (body as Record<string, unknown>[]).map(({ coin, usdc, szi, ...entry }) => {
      const delta = entry.delta as Record<string, unknown>;
      if (coin !== delta?.coin || usdc !== delta?.usdc || szi !== delta?.szi) {
        throw new Error(
          `userFunding: top-level coin/usdc/szi differ from delta: ${JSON.stringify({ coin, usdc, szi })}`,
        );
      }
      return entry;
    }),
};

/** Checks an /info answer against `<Method>Response` of the SDK (its documented additions taken off first). */
export function expectInfoShape(method: string, body: unknown): void {
  const type = `${method[0]?.toUpperCase()}${method.slice(1)}Response`;
  const exchangeShape = DOCUMENTED_ADDITIONS[method]?.(body) ?? body;
  check(validator(type), exchangeShape, `${method} answer`);
}

/** Checks a subscription event against `<Method>Event` of the SDK. */
export function expectEventShape(method: string, event: unknown): void {
  const type = `${method[0]?.toUpperCase()}${method.slice(1)}Event`;
  check(validator(type), event, `${method} event`);
}
