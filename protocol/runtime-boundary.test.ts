import { describe, it, expect } from 'vitest';
import path from 'node:path';
import url from 'node:url';
import { probeDiagnostics } from './test-support/compile-probe.ts';

// Rule (docs/architecture.md): protocol/ compiles with no DOM lib and no Node types, so browser-
// or Node-only globals are compile errors there. Proven by compiling probes with protocol's own
// tsconfig.
const here = path.dirname(url.fileURLToPath(import.meta.url));
const diagnosticsFor = (source: string) => probeDiagnostics(here, source);

describe('protocol/ runtime boundary', () => {
  it.each([
    ['Buffer', 'export const x = Buffer.from("a");'],
    ['process', 'export const x = process.env;'],
    ['window', 'export const x = window.location;'],
    ['document', 'export const x = document.title;'],
  ])('a use of %s fails to compile', (name, source) => {
    const diags = diagnosticsFor(source);
    expect(diags.join('\n')).toContain(`Cannot find name '${name}'`);
  });

  it('the isomorphic globals compile', () => {
    expect(
      diagnosticsFor(
        'export const b = new TextEncoder().encode("x"); export const s = new TextDecoder().decode(b);',
      ),
    ).toEqual([]);
  });
});
