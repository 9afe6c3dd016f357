import ts from 'typescript';
import path from 'node:path';

/**
 * The compile errors of `source` as if it were a file in `folder`, under that folder's own
 * tsconfig.json — how a runtime boundary (no DOM, no Node types) is proven by a test.
 */
export function probeDiagnostics(folder: string, source: string): string[] {
  const cfg = ts.readConfigFile(path.join(folder, 'tsconfig.json'), (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(cfg.config, ts.sys, folder);
  const probe = path.join(folder, '__probe__.ts');
  const host = ts.createCompilerHost(parsed.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (f) => (f === probe ? source : readFile(f));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => f === probe || fileExists(f);
  const declarations = parsed.fileNames.filter((f) => f.endsWith('.d.ts'));
  const program = ts.createProgram([probe, ...declarations], parsed.options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === probe)
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
