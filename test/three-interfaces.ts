// The three interfaces as the cross-interface test asks them (REST `POST /info`, GraphQL through the router, MCP
// tools), each answer checked to be a success, and the one comparable form their records are held to.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';

export type Row = Record<string, unknown>;

export interface Interfaces {
  rest(body: unknown): Promise<unknown>;
  graphql<T>(query: string, variables?: Row): Promise<T>;
  tool<T>(name: string, args: Row): Promise<T>;
}

/** The interfaces of `stack`, asked with `key` (MCP through `mcp`, a client holding it). */
export function interfacesOf(
  stack: { urls: { compat: string; router: string } },
  key: string,
  mcp: Client,
): Interfaces {
  return {
    async rest(body: unknown): Promise<unknown> {
      const res = await fetch(`${stack.urls.compat}/info`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
      });
      expect(res.status, JSON.stringify(body)).toBe(200);
      return res.json();
    },

    async graphql<T>(query: string, variables: Row = {}): Promise<T> {
      const res = await fetch(stack.urls.router, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: T; errors?: unknown[] };
      expect(body.errors, query).toBeUndefined();
      return body.data as T;
    },

    async tool<T>(name: string, args: Row): Promise<T> {
      const result = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      return result.structuredContent as T;
    },
  };
}

/**
 * A record in one comparable form: ids and numbers as the strings the wire prints them as (GraphQL gives u64 ids as
 * strings, REST as numbers), absent and null alike, keys in order.
 */
export function canonical(row: Row, fields: readonly string[]): Row {
  const out: Row = {};
  for (const f of fields) {
    const v = row[f];
    out[f] = v === undefined || v === null ? null : typeof v === 'number' ? String(v) : v;
  }
  return out;
}

/** snake_case keys (the path routes' records, spec §2.3) in camelCase (GraphQL's), deeply. */
export function camel(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camel);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()), camel(v)]),
  );
}

/** Naive UTC ISO 8601 times (the path routes', spec §2.3) as epoch ms (GraphQL's and MCP's), deeply. */
export function epochTimes(value: unknown): unknown {
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+$/.test(value)) return Date.parse(`${value}Z`);
  if (Array.isArray(value)) return value.map(epochTimes);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, epochTimes(v)]));
}

export const FILL_FIELDS = [
  'coin',
  'px',
  'sz',
  'side',
  'time',
  'startPosition',
  'dir',
  'closedPnl',
  'hash',
  'oid',
  'crossed',
  'fee',
  'tid',
  'feeToken',
  'builderFee',
  'cloid',
  'twapId',
] as const;
export const FILL_SELECTION = `${FILL_FIELDS.join(' ')} liquidation { liquidatedUser markPx method }`;

export function fillRows(rows: Row[]): Row[] {
  return rows.map((r) => ({ ...canonical(r, FILL_FIELDS), liquidation: r.liquidation ?? null }));
}
