// The evm MCP tools (made from capabilities.ts by mcp/capability-tools.ts): each tool's published schema compiles
// and refuses a bad argument (the tool server's one Ajv is configured like /info's), its one reading of the arguments
// refuses it too, and each `call` answers over the real services (the simulated history of test/compat-app.ts) what
// the service answers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpToolContext } from '../../kit/domain.ts';
import { infoAjv } from '../../kit/request-schema.ts';
import { capabilityTools } from '../../mcp/capability-tools.ts';
import type { Address } from '../../platform/fields.ts';
import { startCompatApp, type TestCompatApp } from '../../test/compat-app.ts';
import { EVM_CAPABILITIES } from './capabilities.ts';
import { evm } from './domain.ts';

const evmTools = capabilityTools('evm', EVM_CAPABILITIES);

let c: TestCompatApp;
let context: McpToolContext;
let token = '';
let user = '';

beforeAll(async () => {
  c = await startCompatApp();
  const { rows } = await c.db.pool.query<{ token: string }>(
    'SELECT token FROM evm.token_holders WHERE balance_raw > 0 GROUP BY token ORDER BY count(*) DESC LIMIT 1',
  );
  token = rows[0]?.token as string;
  const users = await c.db.pool.query<{ address: string }>(
    "SELECT address FROM accounts.ledger_updates WHERE delta_type = 'send' LIMIT 1",
  );
  user = users.rows[0]?.address as string;
  context = { services: c.services, signal: new AbortController().signal };
}, 120_000);
afterAll(async () => {
  await c?.close();
});

/** One good and one bad argument set per tool; the bad one names the argument the schema must refuse. */
const ARGS: Record<string, { good: () => Record<string, unknown>; bad: Record<string, unknown> }> = {
  evm_transactions: { good: () => ({ limit: 5, includeSystem: true }), bad: { limit: 1001 } },
  evm_token_holders: { good: () => ({ token, limit: 3 }), bad: { token: '0x12' } },
  evm_ledger_transfers: { good: () => ({ actionType: 'agentSendAsset', limit: 5 }), bad: { actionType: 'send' } },
  evm_user_ledger_events: {
    good: () => ({ user, eventTypes: ['agent_send'] }),
    bad: { user: `0x${'a'.repeat(40)}`, eventTypes: ['airdrop'] },
  },
  evm_backstop_transfers: { good: () => ({ dex: 'xyz' }), bad: { offset: -1 } },
  evm_backstop_summary: { good: () => ({}), bad: { startTime: 'yesterday' } },
  evm_backstop_health: { good: () => ({ dex: 'xyz' }), bad: { dex: 7 } },
  evm_backstop_fills: { good: () => ({ dex: 'xyz', limit: 2 }), bad: { dex: 'xyz', side: 'C' } },
};

/** The tool's answer, its arguments first read as the tool server reads them (once, by the definition). */
async function call(name: string, args: Record<string, unknown>) {
  const tool = evmTools.find((t) => t.name === name)!;
  return tool.call(tool.read?.(args) as Record<string, unknown>, context);
}

describe('evm MCP tools', () => {
  it("are the domain's tools, snake_case and prefixed evm_, one test case each", () => {
    expect(evm.capabilities).toBe(EVM_CAPABILITIES);
    expect(evmTools.map((t) => t.name).sort()).toEqual(Object.keys(ARGS).sort());
    for (const t of evmTools) expect(t.name).toMatch(/^evm_[a-z_]+$/);
  });

  it.each(evmTools.map((t) => [t.name, t] as const))(
    '%s: its schema takes good arguments and refuses bad ones',
    (name, tool) => {
      const validate = infoAjv.compile(tool.input);
      const cases = ARGS[name] as (typeof ARGS)[string];
      expect(validate(cases.good())).toBe(true);
      expect(validate(cases.bad)).toBe(false);
      expect(() => tool.read?.(cases.bad)).toThrow(new RegExp(`^${Object.keys(cases.bad).at(-1)}`));
    },
  );

  it('evm_transactions answers the service page', async () => {
    const tool = evmTools.find((t) => t.name === 'evm_transactions')!;
    const out = await call('evm_transactions', { limit: 5, includeSystem: true });
    const direct = await c.services.evm.transactions({ limit: 5, offset: 0, includeSystem: true });
    expect((out.rows as { tx_hash: string }[]).map((r) => r.tx_hash)).toEqual(direct.rows.map((r) => r.hash));
    expect(tool.summary?.(out)).toMatch(/^5 transactions/);
  });

  it('evm_token_holders answers the holders page with the total', async () => {
    const out = await call('evm_token_holders', { token, limit: 3 });
    const { rows, hasMore, nextCursor, totalRaw } = await c.services.evm.tokenHolders({
      token: token as Address,
      limit: 3,
      offset: 0,
    });
    expect(out).toEqual({ rows, hasMore, nextCursor, totalRaw });
  });

  it('every other tool answers over the services', async () => {
    for (const tool of evmTools) {
      const out = await call(tool.name, ARGS[tool.name]!.good());
      expect(typeof out).toBe('object');
      expect(tool.summary?.(out)).toEqual(expect.any(String));
    }
    const events = await call('evm_user_ledger_events', { user, eventTypes: ['agent_send'] });
    for (const e of events.rows as { event_type: string; source_dex: string }[]) {
      expect(e.event_type).toBe('agent_send');
      expect(typeof e.source_dex).toBe('string');
    }
    const health = await call('evm_backstop_health', { dex: 'nope' });
    expect(health).toEqual({ dexes: [], note: "No backstop activity recorded for dex 'nope'" });
  });
});
