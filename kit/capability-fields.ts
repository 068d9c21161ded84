// The GraphQL door of a domain's capabilities (kit/capability.ts): each capability with a `graphql` door becomes
// fields of the subgraph's Query, its arguments the input definition's (`args`), read once by its `parse`:
//
//   - `list`: the page's rows (asked by limit and offset), as the subgraph has always listed them;
//   - `connection`: the page as a Relay connection (asked `after` a cursor: each edge's cursor is its row's, the end
//     cursor the page's next), whose connection and edge types are named after the row's type;
//   - `answer`: the call's answer as it is (a page object, an envelope the type describes);
//   - `fields`: the call's answer (or its page as a connection) as fields of other object types (an entity's), the
//     parent giving some input, or of Query with a form of their own; a field asked of many parents in one response
//     may be answered for all of them at once (`batch`: one statement for a page's builders).
//
// A live capability's subscription (and replay) fields are kit/live-fields.ts'.
import type { GraphQLResolveInfo } from 'graphql';
import { FieldError } from '../platform/fields.ts';
import type { Capabilities, Capability, FieldForm, GraphqlDoor, ParentField } from './capability.ts';
import { callOf } from './capability.ts';
import type { SubgraphPlatform } from './domain.ts';
import { namedOnEdge } from './input.ts';
import { liveFields } from './live-fields.ts';
import { connectionOf, type Page } from './page.ts';
import { selectedFieldNames } from './selection.ts';

// biome-ignore lint/suspicious/noExplicitAny: Pothos' builder and refs, whatever the subgraph's types
type Any = any;

const SLICED = { slicingArguments: ['limit'], requireOneSlicingArgument: false };

/**
 * Adds the Query fields of `capabilities` to `builder`, and the Subscription fields of its live ones; `serviceOf` is
 * the capability's service in a context, and `platformOf` what is assembled over every domain (dataCoverage) in it,
 * for the capabilities that read it.
 */
export function capabilityFields<Context>(
  builder: Any,
  capabilities: Capabilities,
  serviceOf: (context: Context) => unknown,
  platformOf?: (context: Context) => SubgraphPlatform,
): void {
  const callIn = (c: Capability, ctx: Context, input: unknown, selected?: ReadonlySet<string>) =>
    callOf(c, serviceOf(ctx), input, 'graphql', selected, platformOf?.(ctx));
  const connections = new Map<unknown, unknown>();
  const connectionOfType = (type: Any) => {
    let ref = connections.get(type);
    if (!ref) {
      ref = builder.connectionObject({ type, name: `${type.name}Connection` }, { name: `${type.name}Edge` });
      connections.set(type, ref);
    }
    return ref;
  };
  /**
   * The field of a whole answer (or of a page as a connection, `form.connection`), `given` input fields from its
   * parent.
   */
  const answerField = (
    t: Any,
    c: Capability,
    door: GraphqlDoor<Any>,
    form: FieldForm<Any>,
    given: Readonly<Record<string, (parent: unknown) => unknown>> = {},
  ) => {
    // A Query answer is never a connection (`door.connection` names a Query field of its own).
    const connection = form === door ? undefined : (form as ParentField<Any>);
    /** The input the field is asked with: its arguments as the definition reads them, and what the parent gives. */
    const inputOf = (parent: unknown, a: Record<string, unknown>) => {
      const raw = { ...(form.args ? form.args(a) : a) };
      for (const [key, of] of Object.entries(given)) raw[key] = of(parent);
      return c.input.parse(raw, 'graphql') as Record<string, unknown>;
    };
    const field = {
      type: connection?.connection ? (form.type ?? connectionOfType(door.type)) : (form.type ?? door.type),
      // A Query field says the door's description; another type's field its own, if any.
      ...((form === door ? door.description : form.description) ? { description: form.description } : {}),
      ...((form.nullable ?? (c.orNull && !form.of)) ? { nullable: true } : {}),
      args: c.input.args(t, {
        // A Query answer is asked without a cursor; a parent's field pages as its input does.
        omit: [...(form === door ? ['cursor'] : []), ...(form.omit ?? []), ...Object.keys(given)],
        types: door.types,
      }),
      ...(form.listSize ? { listSize: form.listSize } : {}),
    };
    const batch = connection?.batch;
    if (batch) {
      return t.loadable({
        ...field,
        // One loader per field path (the parents' inputs share its arguments), each input asked once.
        byPath: true,
        loaderOptions: { cacheKeyFn: JSON.stringify },
        resolve: inputOf,
        load: async (inputs: Record<string, unknown>[], ctx: Context) => {
          try {
            return await batch(serviceOf(ctx), inputs);
          } catch (err) {
            throw err instanceof FieldError ? namedOnEdge(c.input, err, 'graphql') : err;
          }
        },
      });
    }
    return t.field({
      ...field,
      resolve: async (parent: unknown, a: Record<string, unknown>, ctx: Context, info: GraphQLResolveInfo) => {
        const input = inputOf(parent, a);
        const answer = await callIn(c, ctx, input, selectedFieldNames(info));
        if (connection?.connection) {
          const page = answer as Page<unknown>;
          const node = connection.node;
          const nodes = node ? (row: unknown) => node(row, input) : (row: unknown) => row;
          return { ...connectionOf(page, nodes, input.cursor as string | undefined), page };
        }
        return form.of ? form.of(answer, input, parent) : answer;
      },
    });
  };

  builder.queryFields((t: Any) => {
    const fields: Record<string, unknown> = {};
    for (const c of capabilities.list) {
      const door = c.graphql;
      if (!door) continue;
      const { description, type, types } = door;
      const call = (a: Record<string, unknown>, ctx: Context) => {
        const input = c.input.parse(a, 'graphql');
        return { input, page: callIn(c, ctx, input) as Promise<Any> };
      };
      if (door.list) {
        fields[door.list] = t.field({
          type: [type],
          description,
          args: c.input.args(t, { omit: ['cursor'], types }),
          listSize: SLICED,
          resolve: async (_r: unknown, a: Record<string, unknown>, ctx: Context) => (await call(a, ctx).page).rows,
        });
      }
      if (door.connection) {
        fields[door.connection] = t.field({
          type: connectionOfType(type),
          description: `${description}; a page after a cursor (\`after\`: an edge's cursor or the page's endCursor)`,
          args: c.input.args(t, { omit: ['offset'], types }),
          listSize: { ...SLICED, sizedFields: ['edges'] },
          resolve: async (_r: unknown, a: Record<string, unknown>, ctx: Context) => {
            const { input, page } = call(a, ctx);
            return connectionOf(await page, (row) => row, (input as { cursor?: string }).cursor);
          },
        });
      }
      if (door.answer) fields[door.answer] = answerField(t, c, door, door);
    }
    return fields;
  });
  for (const c of capabilities.list) {
    for (const field of c.graphql?.fields ?? []) {
      const door = c.graphql as GraphqlDoor<Any>;
      const fields = (t: Any) => ({
        [field.name]: answerField(t, c, door, field, field.given as Record<string, (parent: unknown) => unknown>),
      });
      if (field.on === 'Query') builder.queryFields(fields);
      else builder.objectFields(field.on, fields);
    }
  }
  liveFields(builder, capabilities, serviceOf);
}
