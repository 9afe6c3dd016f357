import { describe, it, expect } from 'vitest';
import ts from 'typescript';
import path from 'node:path';
import url from 'node:url';

// Rule (docs/architecture.md): protocol/ compiles with no DOM lib and no Node types, so browser-
// or Node-only globals are compile errors there. Proven by compiling probes with protocol's own
// tsconfig.
const here = path.dirname(url.fileURLToPath(import.meta.url));

function diagnosticsFor(source: string): string[] {
  const configPath = path.join(here, 'tsconfig.json');
  const cfg = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(cfg.config, ts.sys, here);
  const probe = path.join(here, '__probe__.ts');
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (f) => (f === probe ? source : readFile(f));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => f === probe || fileExists(f);
  const rootNames = [probe, path.join(here, 'platform.d.ts')];
  const program = ts.createProgram(rootNames, parsed.options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === probe)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

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
