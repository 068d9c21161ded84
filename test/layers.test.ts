// The api role carries no ingest code (issue 23): what stack.ts loads at run time (the domain services, subgraphs,
// router, compat-rest, MCP) never reaches ingest/; the event bus (events/) is the only thing between them. Read from
// the sources' static imports; `import type` is erased and does not count.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOMAIN_WRITERS } from '../domains.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The project files a module imports at run time (relative specifiers; type-only imports skipped). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  const pattern = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm;
  for (const m of text.matchAll(pattern)) {
    if (m[1]) continue;
    out.push(path.resolve(path.dirname(file), m[2] as string));
  }
  // Dynamic imports load at run time too.
  for (const m of text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)) {
    out.push(path.resolve(path.dirname(file), m[1] as string));
  }
  return out;
}

/** Every project module reachable from `entry`, with the chain that reached it. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file; file = queue.shift()) {
    for (const next of runtimeImports(file)) {
      if (seen.has(next) || next.includes(`${path.sep}node_modules${path.sep}`)) continue;
      seen.set(next, [...(seen.get(file) ?? []), next]);
      queue.push(next);
    }
  }
  return seen;
}

describe('layers', () => {
  it('the servers of an api instance (stack.ts) load nothing from ingest/', () => {
    const modules = reachable(path.join(ROOT, 'stack.ts'));
    expect(modules.size).toBeGreaterThan(50);
    const ingest = [...modules].filter(([file]) => file.startsWith(path.join(ROOT, 'ingest') + path.sep));
    expect(ingest.map(([, chain]) => chain.map((f) => path.relative(ROOT, f)).join(' -> '))).toEqual([]);
    // The walk does see ingest where it is loaded: from start.ts, whose ingest role runs it.
    expect([...reachable(path.join(ROOT, 'start.ts')).keys()]).toContain(path.join(ROOT, 'ingest', 'pipeline.ts'));
  });

  it("nor any domain's writer (subgraphs/<d>/writer/, loaded by the writer thread only)", () => {
    const writerCode = [...reachable(path.join(ROOT, 'stack.ts'))].filter(([file]) =>
      /[\\/]subgraphs[\\/][^\\/]+[\\/]writer[\\/]/.test(path.relative(ROOT, file)),
    );
    expect(writerCode.map(([, chain]) => chain.map((f) => path.relative(ROOT, f)).join(' -> '))).toEqual([]);
    // The walk does see a writer where it is loaded: from the writer thread, by the URL its domain declares.
    expect(DOMAIN_WRITERS.map((w) => w.module)).toContain(
      pathToFileURL(path.join(ROOT, 'subgraphs', 'analytics', 'writer', 'index.ts')).href,
    );
  });
});
