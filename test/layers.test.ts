// The layer rule (issue 32), checked over every non-test source's imports (test/import-graph.ts), bottom first:
//
//   wire → platform → db → events → access → kit (kit/: what domains and edges share)
//     → domains (domains/<d>/, each its own part) → domains.ts (the list)
//     → export (export/: the datasets as Parquet files, which `npm run export` and compat-rest's /export write)
//     → edges (compat-rest/, mcp/, router/, ingest/, each its own part) → entry points (stack.ts, start.ts,
//       subgraph.ts, bench/, test/)
//
// A file imports its own layer and those below it, never above (type-only imports count: they are arrows too). Parts
// of one layer do not import each other: a domain reads another's data through that domain's `port.ts`, and no
// transport builds on another; a transport (compat-rest, mcp, router) reaches the domains only through domains.ts.
// Apart from the rule, no cycle among the imports that load at run time (static, not `import type`; an import of
// type names only, `import { type A }`, loads its module under verbatimModuleSyntax and counts). Also: the servers
// of an api instance (stack.ts) load no ingest code.
//
// The SQL too: a domain's tables (its schema's, `accounts.fills`) are named only in that domain's folder; another part
// reads them through the domain's port (the analytics writer reads accounts' fills with accounts' port's functions),
// and ingest and export reach a domain through its port alone. The few parts that name every schema by design are
// listed with why. The rule is stated once more in docs/architecture.md.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOMAIN_WRITERS } from '../domains.ts';
import {
  arrowsAgainst,
  type ImportEdge,
  type ImportGraph,
  importGraph,
  importsOf,
  type LayerRule,
  runtimeCycles,
  sourceFiles,
  type TableRule,
  tablesAgainst,
} from './import-graph.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

const under =
  (...folders: string[]) =>
  (file: string) =>
    folders.some((f) => file.startsWith(`${f}/`));
const EDGES = ['compat-rest', 'mcp', 'router', 'ingest'];

const LAYERS: LayerRule = {
  layers: [
    { name: 'wire', holds: under('wire') },
    { name: 'platform', holds: under('platform') },
    { name: 'db', holds: under('db') },
    { name: 'events', holds: under('events') },
    { name: 'access', holds: under('access') },
    { name: 'kit', holds: under('kit') },
    { name: 'domains', holds: (f) => /^domains\/[^/]+\//.test(f), part: (f) => f.split('/')[1] },
    { name: 'the domain list', holds: (f) => f === 'domains.ts' },
    { name: 'export', holds: under('export') },
    { name: 'edges', holds: under(...EDGES), part: (f) => f.split('/')[0] },
    {
      name: 'entry points',
      holds: (f) =>
        ['stack.ts', 'start.ts', 'subgraph.ts', 'vitest.config.ts'].includes(f) || under('bench', 'test')(f),
    },
  ],
  // A domain's port is the one file another domain may import.
  crossPart: (from, to) => from.startsWith('domains/') && /^domains\/[^/]+\/port\.ts$/.test(to),
  // A transport reaches the domains through the list (domains.ts), never into a domain's folder.
  forbidden: [
    { from: /^(compat-rest|mcp|router)\//, to: /^domains\/[^/]+\//, why: 'a transport imports a domain folder' },
    // Ingest and export reach a domain only through what it offers them.
    { from: /^(ingest|export)\//, to: /^domains\/[^/]+\/(?!port\.ts$)/, why: "reaches past a domain's port" },
  ],
  allowed: [],
};

/** The domains' schemas: one per domain, named as its folder (db/migrations/<schema>/). */
const SCHEMAS = readdirSync(path.join(ROOT, 'domains'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

const TABLES: TableRule = {
  schemas: SCHEMAS,
  owns: (schema, file) => file.startsWith(`domains/${schema}/`),
  allowed: [
    {
      file: /^db\//,
      why: "the data model's layer: migrations, the row types and table descriptors, the partitioning and distribution of every schema's tables",
    },
    {
      file: /^ingest\/formats\//,
      why: "ingest's loaders write the node's rows into each domain's tables, the one writer of node data (they read none)",
    },
    {
      file: /^(bench|test)\//,
      why: 'entry points: benchmarks and test helpers seed and inspect the tables themselves',
    },
  ],
};

const files = sourceFiles(ROOT, ['test/sdk', 'scratch', 'dist']);
const graph = importGraph(ROOT, files);

describe('layers', () => {
  it('no import runs against the layer rule', () => {
    const { wrong, unused } = arrowsAgainst(graph, LAYERS);
    expect(wrong).toEqual([]);
    expect(unused).toEqual([]);
  });

  it('no cycle among the imports that load at run time', () => {
    expect(graph.size).toBeGreaterThan(200);
    expect(runtimeCycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });

  it("no SQL names another domain's tables outside the allowances", () => {
    expect(SCHEMAS).toEqual(expect.arrayContaining(['accounts', 'analytics', 'evm', 'hip4', 'markets']));
    const sources = new Map(files.map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')]));
    const { wrong, unused } = tablesAgainst(sources, TABLES);
    expect(wrong).toEqual([]);
    expect(unused).toEqual([]);
  });

  it('the servers of an api instance (stack.ts) load nothing from ingest/', () => {
    const modules = reachable('stack.ts');
    expect(modules.size).toBeGreaterThan(50);
    const ingest = [...modules].filter(([file]) => file.startsWith('ingest/'));
    expect(ingest.map(([, chain]) => chain.join(' -> '))).toEqual([]);
    // The walk does see ingest where it is loaded: from start.ts, whose ingest role runs it.
    expect([...reachable('start.ts').keys()]).toContain('ingest/pipeline.ts');
  });
});

/** Every project module `entry` loads at run time (dynamic imports too), with the chain that reached it. */
function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file; file = queue.shift()) {
    for (const edge of graph.get(file) ?? []) {
      if (edge.typeOnly || seen.has(edge.to)) continue;
      seen.set(edge.to, [...(seen.get(file) ?? []), edge.to]);
      queue.push(edge.to);
    }
  }
  return seen;
}

describe('the checker', () => {
  const edge = (to: string, how: Partial<ImportEdge> = {}): ImportEdge => ({
    to,
    typeOnly: false,
    dynamic: false,
    line: 1,
    ...how,
  });
  const synthetic: ImportGraph = new Map([
    ['platform/log.ts', []],
    ['kit/info.ts', [edge('platform/log.ts')]],
    ['domains/a/service.ts', [edge('kit/info.ts'), edge('domains/b/port.ts', { typeOnly: true })]],
    ['domains/b/port.ts', [edge('domains/b/service.ts', { typeOnly: true })]],
    ['domains/b/service.ts', [edge('domains/b/port.ts', { typeOnly: true })]],
    ['domains.ts', [edge('domains/a/service.ts')]],
    ['compat-rest/app.ts', [edge('domains.ts'), edge('kit/info.ts')]],
    ['mcp/server.ts', [edge('kit/info.ts')]],
  ]);
  const rule: LayerRule = { ...LAYERS, allowed: [] };

  it('passes a graph that keeps the rule, and a type-only loop is no cycle', () => {
    expect(arrowsAgainst(synthetic, rule)).toEqual({ wrong: [], unused: [] });
    expect(runtimeCycles(synthetic)).toEqual([]);
  });

  it('names the file and import of an upward arrow, a sideways one, a forbidden one, and one into no layer', () => {
    const bad = new Map(synthetic);
    bad.set('kit/info.ts', [edge('compat-rest/app.ts', { line: 7 })]);
    bad.set('mcp/server.ts', [edge('compat-rest/app.ts', { line: 3, typeOnly: true })]);
    bad.set('domains/a/service.ts', [edge('domains/b/service.ts', { line: 9 })]);
    bad.set('elsewhere/x.ts', []);
    bad.set('compat-rest/app.ts', [edge('kit/info.ts'), edge('domains/a/service.ts', { line: 4 })]);
    expect(arrowsAgainst(bad, rule).wrong).toEqual([
      'kit/info.ts:7 imports compat-rest/app.ts (kit imports edges, a layer above it)',
      'domains/a/service.ts:9 imports domains/b/service.ts (domains: a imports b)',
      'compat-rest/app.ts:4 imports domains/a/service.ts (a transport imports a domain folder)',
      'mcp/server.ts:3 imports compat-rest/app.ts (edges: mcp imports compat-rest)',
      'elsewhere/x.ts is in no layer',
    ]);
  });

  it('keeps an allowance only while its arrow exists (or it is pending)', () => {
    const allowance = { from: /^mcp\//, to: /^compat-rest\//, why: 'moving' };
    const bad = new Map(synthetic);
    bad.set('mcp/server.ts', [edge('compat-rest/app.ts')]);
    expect(arrowsAgainst(bad, { ...rule, allowed: [allowance] })).toEqual({ wrong: [], unused: [] });
    expect(arrowsAgainst(synthetic, { ...rule, allowed: [allowance] }).unused).toEqual([
      '/^mcp\\// -> /^compat-rest\\// (moving)',
    ]);
    // One declared ahead of another branch's work is not reported while unused.
    expect(arrowsAgainst(synthetic, { ...rule, allowed: [{ ...allowance, pending: true }] }).unused).toEqual([]);
  });

  it('prints a run-time cycle, once per tangle, and leaves dynamic imports out', () => {
    const loop = new Map(synthetic);
    loop.set('domains/a/service.ts', [edge('domains/b/port.ts')]);
    loop.set('domains/b/port.ts', [edge('domains/b/service.ts')]);
    loop.set('domains/b/service.ts', [edge('domains/a/service.ts'), edge('domains/b/port.ts')]);
    loop.set('kit/info.ts', [edge('platform/log.ts'), edge('kit/info.ts', { dynamic: true })]);
    expect(runtimeCycles(loop)).toEqual([
      ['domains/a/service.ts', 'domains/b/port.ts', 'domains/b/service.ts', 'domains/a/service.ts'],
    ]);
  });

  it('reads each form of import, and none from comments, strings, templates or regular expressions', () => {
    const source = [
      "import a from './a.ts';",
      "import type { B } from './b.ts';",
      "import { type C, type D as E } from './c.ts';",
      "import { type F, g } from './f.ts';",
      "export type { H } from './h.ts';",
      "export * from './i.ts';",
      "export { j as k } from './j.ts';",
      "import './side-effect.ts';",
      'const m = await import(\'./m.ts\'); type N = typeof import("./n.ts");',
      "declare module './o.ts' { interface P {} }",
      "// import x from './comment.ts';",
      "/* import y from './block.ts'; */ const s = \"import z from './string.ts'\";",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a TypeScript source as text
      "const t = `${`import w from './nested.ts'`} ${{ a: 1 }.a}`; const r = /import v from '.\\/re.ts'/;",
      'export { a, g };',
      "const q = { import: 'x' }; q.import;",
      "import * as ns from './ns.ts';",
    ].join('\n');
    expect(importsOf(source).map((i) => [i.specifier, i.typeOnly, i.dynamic, i.line])).toEqual([
      ['./a.ts', false, false, 1],
      ['./b.ts', true, false, 2],
      ['./c.ts', false, false, 3], // kept as `import {} from './c.ts'` under verbatimModuleSyntax
      ['./f.ts', false, false, 4],
      ['./h.ts', true, false, 5],
      ['./i.ts', false, false, 6],
      ['./j.ts', false, false, 7],
      ['./side-effect.ts', false, false, 8],
      ['./m.ts', false, true, 9],
      ['./n.ts', true, true, 9],
      ['./o.ts', true, false, 10],
      ['./ns.ts', false, false, 16],
    ]);
  });

  it("nor any domain's writer (domains/<d>/writer/, loaded by the writer thread only)", () => {
    // (It once walked from an absolute path, which no key of the graph is, for subgraphs/: it could not fail.)
    const writerCode = [...reachable('stack.ts')].filter(([file]) => /^domains\/[^/]+\/writer\//.test(file));
    expect(writerCode.map(([, chain]) => chain.join(' -> '))).toEqual([]);
    expect(graph.has('domains/analytics/writer/index.ts')).toBe(true);
    // The walk does see a writer where it is loaded: from the writer thread, by the URL its domain declares.
    expect(DOMAIN_WRITERS.map((w) => w.module)).toContain(
      pathToFileURL(path.join(ROOT, 'domains', 'analytics', 'writer', 'index.ts')).href,
    );
  });
});
