// Ports from the configuration: each server's default or its variable, all shifted by PORT_OFFSET.
import { afterEach, describe, expect, it } from 'vitest';
import { configuredPorts } from '../stack.ts';
import { loadConfig, portVariable } from './config.ts';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

function withEnv(env: Record<string, string>) {
  for (const name of [
    'PORT_OFFSET',
    'COMPAT_PORT',
    'ROUTER_PORT',
    'MCP_PORT',
    'SIM_PORT',
    'MARKETS_PORT',
    'ACCOUNTS_PORT',
    'HIP4_PORT',
  ]) {
    delete process.env[name];
  }
  Object.assign(process.env, env);
  return loadConfig();
}

describe('ports', () => {
  it('are each server default, or its variable, named after the domain for a subgraph', () => {
    expect(configuredPorts(withEnv({ ACCOUNTS_PORT: '5002' }))).toEqual({
      compat: 8080,
      router: 4000,
      mcp: 8090,
      markets: 4001,
      accounts: 5002,
      hip4: 4003,
      evm: 4004,
      analytics: 4005,
    });
    expect(portVariable('markets')).toBe('MARKETS_PORT');
    expect(portVariable('hip4')).toBe('HIP4_PORT');
  });

  it('PORT_OFFSET shifts every port the instance listens on, the simulated node too; 0 stays ephemeral', () => {
    const config = withEnv({ PORT_OFFSET: '100', ACCOUNTS_PORT: '5002', ROUTER_PORT: '0', MCP_PORT: '9000' });
    expect(configuredPorts(config)).toEqual({
      compat: 8180,
      router: 0,
      mcp: 9100,
      markets: 4101,
      accounts: 5102,
      hip4: 4103,
      evm: 4104,
      analytics: 4105,
    });
    expect(config.simPort).toBe(3101);
    expect(config.upstreamInfoUrl).toBe('http://127.0.0.1:3101/info');
  });

  it('refuses a shifted port beyond 65535, naming it', () => {
    expect(() => withEnv({ PORT_OFFSET: '62000' })).toThrow('COMPAT_PORT 8080 + PORT_OFFSET 62000 is beyond 65535');
  });
});
