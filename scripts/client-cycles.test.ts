import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { describe, expect, it } from 'vitest';

// A9 (docs/app.md): no import cycle inside src/client. The client is split into small makers with
// explicit inputs (docs/architecture.md); a cycle would mean two of them reach into each other
// again. Static imports and re-exports count, type-only ones too (a circle of types is a circle of
// knowledge); dynamic `import()` does not (a lazy chunk is loaded on demand, not at evaluation).
const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const CLIENT = path.join(root, 'src/client');

const STATIC_IMPORT = /^\s*(?:import|export)\b[^;'"()=]*?(?:\bfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Production modules of src/client (tests and test-support are not part of the graph). */
function clientFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test-support' ? [] : clientFiles(full);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/** Each file's static imports that stay inside src/client. */
export function importGraph(files: string[]): Map<string, string[]> {
  const inside = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const source = readFileSync(file, 'utf8');
    const targets = [...source.matchAll(STATIC_IMPORT)]
      .map((m) => path.resolve(path.dirname(file), m[1]!))
      .filter((t) => inside.has(t));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Every cycle found by a depth-first walk, each as the files around it (first = last). */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const s = state.get(next);
      if (s === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

describe('A9: src/client has no import cycle', () => {
  it('A9: the walk finds a circle of three and a re-export circle when there is one', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['e']],
      ['e', []],
    ]);
    expect(cyclesOf(g)).toEqual([['a', 'b', 'c', 'a']]);
    const text = `import type { X } from './x.ts';\nexport { y } from './y.ts';\nexport * from './z.ts';\nimport './side.ts';\nexport function later() {\n  return import('./lazy.ts');\n}\n`;
    expect([...text.matchAll(STATIC_IMPORT)].map((m) => m[1])).toEqual([
      './x.ts',
      './y.ts',
      './z.ts',
      './side.ts',
    ]);
  });

  it('A9: no module of src/client reaches itself through static imports', () => {
    const files = clientFiles(CLIENT);
    expect(files.length).toBeGreaterThan(20);
    const rel = (f: string) => path.relative(CLIENT, f);
    expect(cyclesOf(importGraph(files)).map((c) => c.map(rel).join(' → '))).toEqual([]);
  });
});
