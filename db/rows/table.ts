// The row type of every table ingest writes, defined once: ingest builds these, COPY writes them (column lists
// below, in table order), the event bus carries them live, and the services read the same columns back.
// Decimal columns are strings; epoch-ms and id columns are numbers.

export interface TableSpec<R> {
  table: string;
  columns: readonly (keyof R & string)[];
  /** How a batch reaches the table: plain COPY (append-only tables) or staged with ON CONFLICT DO NOTHING. */
  conflict: 'append' | 'ignore';
}

export function table<R>(name: string, columns: readonly (keyof R & string)[], conflict: TableSpec<R>['conflict']) {
  return { table: name, columns, conflict } satisfies TableSpec<R>;
}
