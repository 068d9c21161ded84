// What a resolver's caller selected below it, for fields whose data costs a query of its own to fetch.
import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * Whether a field named `name` is selected anywhere below the resolving field (through fragments too). It may
 * answer true for a same-named field deeper down: callers only skip work on false.
 */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): boolean =>
    !!set?.selections.some((s) => {
      if (s.kind === Kind.FIELD) return s.name.value === name || visit(s.selectionSet);
      if (s.kind === Kind.INLINE_FRAGMENT) return visit(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      return visit(info.fragments[s.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}
