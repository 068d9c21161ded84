// GraphQL requests of the bad-input fuzz test, drawn from the subgraph schemas: one target per root field and per
// field with arguments below it, each argument given a good value, a bad one of its type, a hostile one or none.
import fc from 'fast-check';
import {
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
import { HUGE_TEXT, nasty, now } from './values.ts';

export interface GraphQLTarget {
  arbitrary: fc.Arbitrary<{ query: string; variables: Record<string, unknown>; group: string; args: string[] }>;
}

const goodArg: Record<string, unknown> = {
  coin: 'BTC',
  address: '',
  user: '',
  limit: 10,
  first: 10,
  startTime: now - 10 * 60_000,
  endTime: now,
  index: 0,
  nSigFigs: 5,
  oid: '1',
  twapId: '1',
  aggregateByTime: false,
};

/** A value of the argument's type that its field accepts, where one is known. */
function goodValue(arg: GraphQLArgument, user: string): unknown {
  if (arg.name === 'address' || arg.name === 'user') return user;
  if (arg.name in goodArg) return goodArg[arg.name];
  const named = getNamedType(arg.type);
  if (isEnumType(named)) return named.getValues()[0]?.name;
  return undefined;
}

/** Bad values for an argument of type `type`: of the wrong type, out of range, hostile. */
function badValue(type: GraphQLInputType): fc.Arbitrary<unknown> {
  const named = getNamedType(type);
  const typed = isEnumType(named)
    ? fc.constantFrom('NOPE', '1m ', '')
    : named.name === 'Int'
      ? fc.constantFrom(-1, 0, 2 ** 31, -(2 ** 31) - 1, 1.5)
      : named.name === 'ID' || named.name === 'Timestamp'
        ? fc.constantFrom('-1', '1e3', '18446744073709551616', '99999999999999999999', 9e15, 8.64e15 + 1, -1, 'abc', '')
        : fc.constantFrom(
            '',
            '\u0000',
            'BTC\u0000',
            '\ud800',
            '0x123',
            `0x${'g'.repeat(40)}`,
            HUGE_TEXT,
            '1:2',
            '9999999999999999:99999999999999999999',
            '99999999999999999999999',
          );
  return fc.oneof(
    { weight: 3, arbitrary: typed },
    { weight: 2, arbitrary: nasty },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}

/** The GraphQL type of a variable standing for `arg` (its declared type, so the server coerces the value). */
const typeText = (t: GraphQLInputType): string => t.toString();

/**
 * One target per root field of Query and Subscription, and per (root, field with arguments below it): each is drawn
 * as often as any other, so that `user.fills` gets as many requests as `allMids`.
 */
export function graphqlTargets(
  schemas: GraphQLSchema[],
  operation: 'query' | 'subscription',
  user: string,
): GraphQLTarget[] {
  const targets: GraphQLTarget[] = [];
  for (const schema of schemas) {
    const type = operation === 'query' ? schema.getQueryType() : schema.getSubscriptionType();
    for (const root of Object.values(type?.getFields() ?? {})) {
      if (root.name.startsWith('_')) continue;
      targets.push({ arbitrary: selectionArb(operation, root, null, user) });
      for (const child of childFields(root).filter((c) => c.args.length > 0)) {
        targets.push({ arbitrary: selectionArb(operation, root, child, user) });
      }
    }
  }
  return targets;
}

function childFields(field: GraphQLField<unknown, unknown>): GraphQLField<unknown, unknown>[] {
  const type = getNamedType(field.type);
  return isObjectType(type) ? Object.values(type.getFields()) : [];
}

/** A leaf selection for a field's type: its first scalar fields, or __typename. */
function leaves(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type);
  if (isScalarType(type) || isEnumType(type)) return '';
  if (!isObjectType(type)) return '{ __typename }';
  const scalars = Object.values(type.getFields())
    .filter(
      (f) =>
        f.args.every((a) => !isNonNullType(a.type)) &&
        (isScalarType(getNamedType(f.type)) || isEnumType(getNamedType(f.type))),
    )
    .slice(0, 3)
    .map((f) => f.name);
  return `{ __typename ${scalars.join(' ')} }`;
}

function argsArb(field: GraphQLField<unknown, unknown>, prefix: string, user: string) {
  return fc.tuple(
    ...field.args.map((arg) =>
      fc
        .record({
          mode: fc.constantFrom('good', 'good', 'good', 'bad', 'bad', 'literal', 'absent'),
          bad: badValue(arg.type),
        })
        .map(({ mode, bad }) => {
          const v = `${prefix}_${arg.name}`;
          const good = goodValue(arg, user);
          if (mode === 'absent' || (mode === 'good' && good === undefined)) return null;
          const value = mode === 'good' ? good : bad;
          if (mode === 'literal')
            return {
              decl: '',
              use: `${arg.name}: ${literal(bad, isListType(arg.type) || (isNonNullType(arg.type) && isListType(arg.type.ofType)))}`,
              v,
              value: undefined,
            };
          return { decl: `$${v}: ${typeText(arg.type)}`, use: `${arg.name}: $${v}`, v, value };
        }),
    ),
  );
}

/** A value written into the document; strings escaped as JSON does (GraphQL's string syntax is the same). */
function literal(value: unknown, _list: boolean): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => literal(v, false)).join(', ')}]`;
  return `{${Object.entries(value as object)
    .filter(([k]) => /^[A-Za-z_]\w*$/.test(k))
    .map(([k, v]) => `${k}: ${literal(v, false)}`)
    .join(', ')}}`;
}

function selectionArb(
  operation: 'query' | 'subscription',
  root: GraphQLField<unknown, unknown>,
  c: GraphQLField<unknown, unknown> | null,
  user: string,
) {
  return fc
    .tuple(argsArb(root, 'r', user), c ? argsArb(c, 'c', user) : fc.constant([] as never[]))
    .map(([rootArgs, childArgs]) => {
      const all = [...rootArgs, ...childArgs].filter((a) => a !== null);
      const decls = all.filter((a) => a.decl).map((a) => a.decl);
      const variables = Object.fromEntries(all.filter((a) => a.decl).map((a) => [a.v, a.value]));
      const argText = (list: typeof rootArgs) => {
        const used = list.filter((a) => a !== null).map((a) => a.use);
        return used.length ? `(${used.join(', ')})` : '';
      };
      const inner = c ? `{ __typename ${c.name}${argText(childArgs)} ${leaves(c)} }` : leaves(root);
      const head = `${operation} Fuzz${decls.length ? `(${decls.join(', ')})` : ''}`;
      const query = `${head} { ${root.name}${argText(rootArgs)} ${inner} }`;
      const args = [...root.args, ...(c?.args ?? [])].map((a) => a.name);
      return { query, variables, group: `${operation} ${root.name}${c ? `.${c.name}` : ''}`, args };
    });
}
