// The registry's own rules: a key two domains declare is refused, and a domain comes after those it needs.
import { describe, expect, it } from 'vitest';
import { DATASETS, DOMAIN_LIST } from '../domains.ts';
import type { Domain, SharedDeps } from './domain.ts';
import { startDomainServices, unionOf } from './domain.ts';

describe('the domain list', () => {
  it('refuses an /info type (or a dataset) declared by two domains, naming both', () => {
    expect(() =>
      unionOf('/info type', [
        ['markets', { l2Book: 1, allMids: 2 }],
        ['hip4', { outcomes: 3, l2Book: 4 }],
      ]),
    ).toThrow('/info type "l2Book" is declared by both markets and hip4');
  });

  it('assembles dataCoverage from each domain and the datasets of domains not served yet', () => {
    for (const domain of DOMAIN_LIST)
      expect(Object.keys(DATASETS)).toEqual(expect.arrayContaining(Object.keys(domain.datasets)));
    expect(Object.keys(DATASETS)).toEqual(expect.arrayContaining(['fills', 'trades', 'hip4', 'evm']));
  });

  it('starts services in order, and refuses a domain listed before one it needs', async () => {
    const started: string[] = [];
    const domain = (name: string, needs: string[] = []) =>
      ({
        name,
        needs,
        create: ({ services }: { services: Record<string, unknown> }) => ({
          start: () => void started.push(`${name} after ${Object.keys(services).join(',') || 'none'}`),
          stop: () => void started.push(`${name} stopped`),
        }),
      }) as unknown as Domain;
    const deps = {} as SharedDeps;
    const ok = await startDomainServices([domain('a'), domain('b', ['a'])], deps);
    await ok.stop();
    expect(started).toEqual(['a after none', 'b after a', 'b stopped', 'a stopped']);
    started.length = 0;
    await expect(startDomainServices([domain('b', ['a']), domain('a')], deps)).rejects.toThrow(
      'domain b needs a: list a before it in domains.ts',
    );
    await expect(startDomainServices([domain('a'), domain('c', ['x'])], deps)).rejects.toThrow('domain c needs x');
    // What started before the refusal is stopped.
    expect(started).toEqual(['a after none', 'a stopped']);
  });
});
