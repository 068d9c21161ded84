// SQL shapes the markets queries share.

/**
 * The newest row per key of a table indexed on (key, time): a loose index scan (one index probe per distinct key)
 * instead of a scan of the whole history.
 */
export function latestPerKey(table: string, key: string, columns: string, where = 'true'): string {
  return `WITH RECURSIVE k AS (
      (SELECT ${key} AS v FROM ${table} ORDER BY ${key} LIMIT 1)
      UNION ALL
      SELECT (SELECT ${key} FROM ${table} WHERE ${key} > k.v ORDER BY ${key} LIMIT 1) FROM k WHERE k.v IS NOT NULL
    )
    SELECT s.* FROM k CROSS JOIN LATERAL (
      SELECT ${columns} FROM ${table} t WHERE t.${key} = k.v AND ${where} ORDER BY t.time DESC LIMIT 1
    ) s WHERE k.v IS NOT NULL`;
}
