// The project's import graph read from its sources, and the two checks test/layers.test.ts runs over it: arrows
// against a layer rule, and cycles among the imports that load at run time. The sources are read by a small
// tokenizer (comments, strings, templates and regular expressions skipped) rather than the TypeScript compiler:
// `typescript` 7 ships no JavaScript parser, only a client of its native binary.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One import of a project module: where it points (a path from the root) and how it loads. */
export interface ImportEdge {
  to: string;
  /**
   * `import type`, `export type`, `typeof import('…')` or a `declare module '…'` augmentation: erased at run time.
   * Not `import { type A }`: under verbatimModuleSyntax (tsconfig.json) it stays as `import {} from '…'`, which
   * loads the module (esbuild, hence tsx, keeps it too).
   */
  typeOnly: boolean;
  /** `import('…')`: loaded when the call runs, not when the importer loads. */
  dynamic: boolean;
  /** The 1-based line of the import, for messages. */
  line: number;
}

/** Project file (from the root, `/`-separated) → its imports of other project files (relative specifiers only). */
export type ImportGraph = Map<string, ImportEdge[]>;

/** A template's text is its chunks between `${…}`, each a token of its own (the expressions are tokens too). */
type Token = { kind: 'word' | 'punct' | 'string' | 'template' | 'other'; text: string; line: number };

const REGEX_AFTER_WORDS = new Set(['return', 'typeof', 'case', 'in', 'of', 'delete', 'void', 'throw', 'new', 'yield']);
const REGEX_AFTER_WORDS_OR_PUNCT = (prev: Token | undefined) =>
  !prev ||
  (prev.kind === 'punct' && !/^[)\]}]$/.test(prev.text)) ||
  (prev.kind === 'word' && REGEX_AFTER_WORDS.has(prev.text));

/** The tokens of a TypeScript source that matter for its imports: words, punctuation and string literals. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let i = 0;
  // Open template literals' `${` depth, to know when a `}` resumes a template's text.
  const braces: number[] = [];
  const count = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (text.charCodeAt(k) === 10) line++;
  };
  const templateText = () => {
    // From just after a ` or a resuming }, to the closing ` or the next ${.
    const start = i;
    const startLine = line;
    let end = text.length;
    while (i < text.length) {
      const c = text[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        end = i++;
        break;
      } else if (c === '$' && text[i + 1] === '{') {
        end = i;
        i += 2;
        braces.push(0);
        break;
      } else i++;
    }
    count(start, i);
    tokens.push({ kind: 'template', text: text.slice(start, end), line: startLine });
  };
  while (i < text.length) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      count(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      let value = '';
      const startLine = line;
      i++;
      while (i < text.length && text[i] !== c) {
        if (text[i] === '\\') {
          value += text[i + 1];
          i += 2;
        } else value += text[i++];
      }
      i++;
      tokens.push({ kind: 'string', text: value, line: startLine });
    } else if (c === '`') {
      i++;
      templateText();
    } else if (c === '/' && REGEX_AFTER_WORDS_OR_PUNCT(tokens.at(-1))) {
      let inClass = false;
      i++;
      while (i < text.length && text[i] !== '\n') {
        const r = text[i];
        if (r === '\\') i += 2;
        else {
          if (r === '[') inClass = true;
          else if (r === ']') inClass = false;
          else if (r === '/' && !inClass) break;
          i++;
        }
      }
      i++;
      while (i < text.length && /\w/.test(text[i] as string)) i++;
      tokens.push({ kind: 'other', text: 'regex', line });
    } else if (/[\w$]/.test(c)) {
      const start = i;
      while (i < text.length && /[\w$]/.test(text[i] as string)) i++;
      tokens.push({ kind: /\d/.test(c) ? 'other' : 'word', text: text.slice(start, i), line });
    } else {
      if (braces.length > 0) {
        if (c === '{') braces[braces.length - 1]!++;
        else if (c === '}') {
          if (braces.at(-1) === 0) {
            braces.pop();
            i++;
            templateText();
            continue;
          }
          braces[braces.length - 1]!--;
        }
      }
      tokens.push({ kind: 'punct', text: c, line });
      i++;
    }
  }
  return tokens;
}

/** The specifiers a source imports, with how each loads (see ImportEdge). */
export function importsOf(text: string): { specifier: string; typeOnly: boolean; dynamic: boolean; line: number }[] {
  const tokens = tokenize(text);
  const out: { specifier: string; typeOnly: boolean; dynamic: boolean; line: number }[] = [];
  const at = (k: number) => tokens[k];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (t.kind !== 'word') continue;
    const prev = at(k - 1);
    if (prev?.text === '.' || at(k + 1)?.text === ':') continue; // a property named import/export/declare
    if (t.text === 'import' && at(k + 1)?.text === '(') {
      const spec = at(k + 2);
      if (spec?.kind === 'string' && at(k + 3)?.text === ')') {
        out.push({ specifier: spec.text, typeOnly: prev?.text === 'typeof', dynamic: true, line: t.line });
      }
    } else if (t.text === 'declare' && at(k + 1)?.text === 'module' && at(k + 2)?.kind === 'string') {
      out.push({ specifier: (at(k + 2) as Token).text, typeOnly: true, dynamic: false, line: t.line });
    } else if (t.text === 'import' || t.text === 'export') {
      // import 'x' | import [type] … from 'x' | export [type] { … } from 'x' | export * [as n] from 'x'
      let j = k + 1;
      if (t.text === 'import' && at(j)?.kind === 'string') {
        out.push({ specifier: (at(j) as Token).text, typeOnly: false, dynamic: false, line: t.line });
        continue;
      }
      if (t.text === 'export' && at(j)?.text !== '{' && at(j)?.text !== '*' && at(j)?.text !== 'type') continue;
      const statementType = at(j)?.text === 'type' && at(j + 1)?.text !== 'from' && at(j + 1)?.text !== ',';
      if (statementType) j++;
      for (let depth = 0; j < tokens.length; j++) {
        const u = at(j) as Token;
        if (u.text === '{') depth++;
        else if (u.text === '}') depth--;
        else if (depth === 0 && u.text === 'from' && at(j + 1)?.kind === 'string') break;
        else if (depth === 0 && (u.text === ';' || u.kind === 'string')) {
          j = -1; // not an import of a module (`export { a, b };`)
          break;
        }
      }
      if (j < 0 || j >= tokens.length) continue;
      out.push({ specifier: (at(j + 1) as Token).text, typeOnly: statementType, dynamic: false, line: t.line });
      k = j + 1;
    }
  }
  return out;
}

/** Every non-test `.ts` source under `root`, from the root (`/`-separated). */
export function sourceFiles(root: string, skip: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || skip.includes(rel)) continue;
      if (entry.isDirectory()) walk(rel);
      else if (/\.ts$/.test(entry.name) && !/\.(test|d)\.ts$/.test(entry.name)) out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

/** The import graph of `files` under `root`: their relative imports, resolved to paths from the root. */
export function importGraph(root: string, files: readonly string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const edges = importsOf(readFileSync(path.join(root, file), 'utf8'))
      .filter((i) => i.specifier.startsWith('.'))
      .map(({ specifier, typeOnly, dynamic, line }) => ({
        to: path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)),
        typeOnly,
        dynamic,
        line,
      }));
    graph.set(file, edges);
  }
  return graph;
}

/** A layer: a name and the files it holds (a test on a path from the root). */
export interface Layer {
  name: string;
  holds(file: string): boolean;
  /**
   * The parts of the layer that may not import each other (each domain, each transport): the part a file is in,
   * or undefined when the layer is one part.
   */
  part?(file: string): string | undefined;
}

/** An arrow the rule allows although it breaks it, and why (the check fails once no import uses it). */
export interface Allowed {
  from: RegExp;
  to: RegExp;
  why: string;
  /** Declared ahead of work in flight on another branch: not reported when no import uses it yet. */
  pending?: boolean;
}

export interface LayerRule {
  /** Bottom first: a file imports only from its own layer and those listed before it. */
  layers: readonly Layer[];
  /** Whether a file of one part may import `to`, in another part of the same layer (a domain's port). */
  crossPart?(from: string, to: string): boolean;
  /** Arrows to a layer below that are still refused (a transport reaching into a domain's folder). */
  forbidden?: readonly { from: RegExp; to: RegExp; why: string }[];
  allowed?: readonly Allowed[];
}

/** Every import against the rule, as `file:line imports to (why)`, and the allowances no import uses any more. */
export function arrowsAgainst(graph: ImportGraph, rule: LayerRule): { wrong: string[]; unused: string[] } {
  const layerOf = (file: string) => rule.layers.findIndex((l) => l.holds(file));
  const wrong: string[] = [];
  const used = new Set<Allowed>();
  for (const [from, edges] of graph) {
    const a = layerOf(from);
    if (a < 0) {
      wrong.push(`${from} is in no layer`);
      continue;
    }
    for (const edge of edges) {
      const b = layerOf(edge.to);
      const layer = rule.layers[a] as Layer;
      let why: string | undefined;
      if (b < 0) why = `${edge.to} is in no layer`;
      else if (b > a) why = `${layer.name} imports ${rule.layers[b]?.name}, a layer above it`;
      else if (b === a) {
        const p = layer.part?.(from);
        const q = layer.part?.(edge.to);
        if (p !== q && !rule.crossPart?.(from, edge.to))
          why = `${layer.name}: ${p ?? 'shared'} imports ${q ?? 'shared'}`;
      }
      why ??= rule.forbidden?.find((x) => x.from.test(from) && x.to.test(edge.to))?.why;
      if (!why) continue;
      const allowance = rule.allowed?.find((x) => x.from.test(from) && x.to.test(edge.to));
      if (allowance) used.add(allowance);
      else wrong.push(`${from}:${edge.line} imports ${edge.to} (${why})`);
    }
  }
  const unused = (rule.allowed ?? [])
    .filter((x) => !used.has(x) && !x.pending)
    .map((x) => `${x.from} -> ${x.to} (${x.why})`);
  return { wrong, unused };
}

/**
 * The cycles among the imports that load with their importer (static, not type-only): each as the files around it,
 * the first repeated at the end. One cycle per strongly connected component (the shortest through its first file),
 * so that a tangle is reported once, not as every loop inside it.
 */
export function runtimeCycles(graph: ImportGraph): string[][] {
  const next = (file: string) => [
    ...new Set((graph.get(file) ?? []).filter((e) => !e.typeOnly && !e.dynamic && graph.has(e.to)).map((e) => e.to)),
  ];
  // Tarjan's strongly connected components.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, indexOf.get(w) as number));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next(v).includes(v)) components.push(component.sort());
    }
  };
  for (const file of [...graph.keys()].sort()) if (!indexOf.has(file)) connect(file);
  // The shortest loop from each component's first file back to itself (breadth first inside the component).
  return components.map((component) => {
    const inside = new Set(component);
    const start = component[0] as string;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    for (let v = queue.shift(); v !== undefined; v = queue.shift()) {
      for (const w of next(v)) {
        if (!inside.has(w)) continue;
        if (w === start) {
          const loop = [start];
          for (let u: string | undefined = v; u !== undefined && u !== start; u = cameFrom.get(u)) loop.splice(1, 0, u);
          return [...loop, start];
        }
        if (!cameFrom.has(w)) {
          cameFrom.set(w, v);
          queue.push(w);
        }
      }
    }
    return [...component, start];
  });
}

/** A table (or other object) of a schema named in a source's strings and templates, where its SQL is. */
export interface TableName {
  /** `schema.table`, as written. */
  name: string;
  schema: string;
  line: number;
}

/**
 * The `schema.table` names of `schemas` in a source's string literals and template texts (not its comments, nor a
 * module's file name such as `../db/rows/accounts.ts`).
 */
export function tablesNamed(text: string, schemas: readonly string[]): TableName[] {
  const name = new RegExp(`(?<![\\w./$-])(${schemas.join('|')})\\.(?!ts\\b)([a-z_][a-z0-9_]*)\\b`, 'g');
  const out: TableName[] = [];
  for (const token of tokenize(text)) {
    if (token.kind !== 'string' && token.kind !== 'template') continue;
    for (const m of token.text.matchAll(name)) {
      const line = token.line + (token.text.slice(0, m.index).match(/\n/g)?.length ?? 0);
      out.push({ name: m[0], schema: m[1] as string, line });
    }
  }
  return out;
}

/** Which files may name which schema's tables in their SQL. */
export interface TableRule {
  schemas: readonly string[];
  /** Whether `file` is the schema's own (its domain's folder). */
  owns(schema: string, file: string): boolean;
  /** Files that name other schemas' tables by design, and why (the check fails once no name uses one). */
  allowed?: readonly { file: RegExp; why: string }[];
}

/**
 * Every table named outside its owner's files, as `file:line names schema.table (why)`, and the allowances no name
 * uses any more. `sources`: each file (from the root) and its text.
 */
export function tablesAgainst(
  sources: ReadonlyMap<string, string>,
  rule: TableRule,
): { wrong: string[]; unused: string[] } {
  const wrong: string[] = [];
  const used = new Set<NonNullable<TableRule['allowed']>[number]>();
  for (const [file, text] of sources) {
    for (const t of tablesNamed(text, rule.schemas)) {
      if (rule.owns(t.schema, file)) continue;
      const allowance = rule.allowed?.find((a) => a.file.test(file));
      if (allowance) used.add(allowance);
      else wrong.push(`${file}:${t.line} names ${t.name} outside domains/${t.schema}/`);
    }
  }
  const unused = (rule.allowed ?? []).filter((a) => !used.has(a)).map((a) => `${a.file} (${a.why})`);
  return { wrong, unused };
}
