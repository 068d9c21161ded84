// What a resolver's caller selected below it, for fields whose data costs a query of its own to fetch.
import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';

/**
 * The names of the fields selected anywhere below the resolving field (through fragments too): a name may belong to
 * a same-named field deeper down, so callers only skip work for names absent.
 */
export function selectedFieldNames(info: GraphQLResolveInfo): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): void => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) {
        names.add(s.name.value);
        visit(s.selectionSet);
      } else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        visit(info.fragments[s.name.value]?.selectionSet);
      }
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return names;
}

/**
 * The columns behind the fields among `selected` (names anywhere in a selection, see selectedFieldNames), by a map
 * from a type's field names to the columns each is printed from; names not in the map need none.
 */
export function columnsFor<C>(
  selected: Iterable<string>,
  fieldColumns: Readonly<Record<string, readonly C[]>>,
): Set<C> {
  const columns = new Set<C>();
  for (const name of selected) for (const c of fieldColumns[name] ?? []) columns.add(c);
  return columns;
}
