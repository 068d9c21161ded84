// API keys: created once and shown once, stored only as a sha256 hash. Scope `data` (REST, GraphQL and the tool
// server) or `mcp` (the tool server only). The same lookup serves compat-rest, the router and MCP.
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';

export type KeyScope = 'data' | 'mcp';

export interface ApiKey {
  id: number;
  prefix: string;
  scope: KeyScope;
  label: string | null;
  rateLimitPerMin: number;
  credits: number | null;
  createdAt: string;
  revokedAt: string | null;
}

const KEY_PREFIX = 'hlk_';

/** The command that makes a key for the data APIs, as the servers and pages tell people who need one. */
export const CREATE_KEY_COMMAND = 'npm run -s keys -- create --scope data';

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

interface KeyRow {
  id: number;
  key_prefix: string;
  scope: KeyScope;
  label: string | null;
  rate_limit_per_min: number;
  credits: number | null;
  created_at: Date;
  revoked_at: Date | null;
}

function toApiKey(r: KeyRow): ApiKey {
  return {
    id: r.id,
    prefix: r.key_prefix,
    scope: r.scope,
    label: r.label,
    rateLimitPerMin: r.rate_limit_per_min,
    credits: r.credits,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at?.toISOString() ?? null,
  };
}

const COLUMNS = 'id, key_prefix, scope, label, rate_limit_per_min, credits, created_at, revoked_at';

export interface CreateKeyOptions {
  scope: KeyScope;
  credits?: number | null;
  rateLimitPerMin?: number;
  label?: string | null;
}

/** Creates a key; the returned `key` is the only time it exists in clear. */
export async function createKey(pool: pg.Pool, opts: CreateKeyOptions): Promise<{ key: string; record: ApiKey }> {
  const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
  const { rows } = await pool.query<KeyRow>(
    `INSERT INTO platform.api_keys (key_hash, key_prefix, scope, label, rate_limit_per_min, credits)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [
      hashKey(key),
      key.slice(0, KEY_PREFIX.length + 6),
      opts.scope,
      opts.label ?? null,
      opts.rateLimitPerMin ?? 1200,
      opts.credits ?? null,
    ],
  );
  return { key, record: toApiKey(rows[0] as KeyRow) };
}

export async function listKeys(pool: pg.Pool): Promise<ApiKey[]> {
  const { rows } = await pool.query<KeyRow>(`SELECT ${COLUMNS} FROM platform.api_keys ORDER BY id`);
  return rows.map(toApiKey);
}

/** Revokes by id or by the key's shown prefix; returns how many keys were revoked. */
export async function revokeKey(pool: pg.Pool, idOrPrefix: string): Promise<number> {
  const byId = /^\d+$/.test(idOrPrefix);
  const { rowCount } = await pool.query(
    `UPDATE platform.api_keys SET revoked_at = now() WHERE revoked_at IS NULL AND ${byId ? 'id = $1::bigint' : 'key_prefix = $1'}`,
    [idOrPrefix],
  );
  return rowCount ?? 0;
}

/** The active key matching a presented secret, or null. */
export async function findKey(pool: pg.Pool, presented: string): Promise<ApiKey | null> {
  const key = await keyOfSecret(pool, presented);
  return key?.revokedAt ? null : key;
}

/** The key matching a presented secret, revoked or not (`revokedAt`), or null: the check tells a revoked key apart. */
export async function keyOfSecret(pool: pg.Pool, presented: string): Promise<ApiKey | null> {
  const { rows } = await pool.query<KeyRow>(`SELECT ${COLUMNS} FROM platform.api_keys WHERE key_hash = $1`, [
    hashKey(presented),
  ]);
  return rows[0] ? toApiKey(rows[0]) : null;
}

/** Whether any active key exists (with none, the service serves loopback only). */
export async function anyKeyConfigured(pool: pg.Pool): Promise<boolean> {
  const { rowCount } = await pool.query('SELECT 1 FROM platform.api_keys WHERE revoked_at IS NULL LIMIT 1');
  return (rowCount ?? 0) > 0;
}
