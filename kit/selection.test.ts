import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  Kind,
  type OperationDefinitionNode,
  parse,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { selectedFieldNames } from './selection.ts';

const selectsField = (info: GraphQLResolveInfo, name: string) => selectedFieldNames(info).has(name);

/** The resolve info of the operation's first root field, as far as selectsField reads it. */
function infoOf(source: string): GraphQLResolveInfo {
  const doc = parse(source);
  const op = doc.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  return { fieldNodes: [op.selectionSet.selections[0] as FieldNode], fragments } as unknown as GraphQLResolveInfo;
}

describe('selectedFieldNames', () => {
  it('names every field below, once, and none of the fragments', () => {
    const source =
      'query { fills { ...F edges { cursor } } } fragment F on C { edges { node { px ... on Fill { sz } } } }';
    expect([...selectedFieldNames(infoOf(source))].sort()).toStrictEqual(['cursor', 'edges', 'node', 'px', 'sz']);
  });

  it('finds a field below, directly, in inline fragments and in (recursive) named fragments', () => {
    expect(selectsField(infoOf('{ fills { edges { node { px orderType } } } }'), 'orderType')).toBe(true);
    expect(selectsField(infoOf('{ fills { edges { node { px } } } }'), 'orderType')).toBe(false);
    expect(selectsField(infoOf('{ fills { edges { node { ... on Fill { orderType } } } } }'), 'orderType')).toBe(true);
    const named =
      'query { fills { ...F } } fragment F on C { edges { node { ...G } } } fragment G on Fill { orderType }';
    expect(selectsField(infoOf(named), 'orderType')).toBe(true);
    const loop = 'query { fills { ...F } } fragment F on C { edges { ...F } }';
    expect(selectsField(infoOf(loop), 'orderType')).toBe(false);
    // The resolving field itself does not count.
    expect(selectsField(infoOf('{ orderType }'), 'orderType')).toBe(false);
  });
});
