// Rows gathered by a key, in order: Node 20 has no Map.groupBy.

/** `rows` in groups of equal `key`: the groups in the order of their first row, each group's rows in their order. */
export function groupsOf<R, K>(rows: Iterable<R>, key: (row: R) => K): R[][] {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const k = key(row);
    const group = groups.get(k);
    if (group) group.push(row);
    else groups.set(k, [row]);
  }
  return [...groups.values()];
}
