import { describe, expect, it } from 'vitest';
import { ESLint } from 'eslint';
import path from 'node:path';
import url from 'node:url';

// The import rules of docs/architecture.md, proven through ESLint's Node API against the real
// eslint.config.js: a probe source is linted as if it lived in each folder.
const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const eslint = new ESLint({ cwd: root });

async function restricted(folderFile: string, specifier: string): Promise<boolean> {
  const [result] = await eslint.lintText(`import '${specifier}';\n`, {
    filePath: path.join(root, folderFile),
  });
  return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
}

const FAILS: [string, string, string][] = [
  ['protocol/ imports no Node built-ins (node: prefix)', 'protocol/probe.ts', 'node:fs'],
  ['protocol/ imports no Node built-ins (bare name)', 'protocol/probe.ts', 'fs'],
  ['protocol/ imports no Node built-ins (subpath)', 'protocol/probe.ts', 'fs/promises'],
  ['protocol/ imports no Node built-ins (crypto)', 'protocol/probe.ts', 'crypto'],
  ['protocol/ imports nothing of ours: relay', 'protocol/probe.ts', '../relay/main.ts'],
  ['protocol/ imports nothing of ours: src', 'protocol/probe.ts', '../src/App.tsx'],
  ['protocol/ imports nothing of ours: machine', 'protocol/probe.ts', '../machine/index.ts'],
  ['protocol tests import nothing of ours either', 'protocol/probe.test.ts', '../relay/main.ts'],
  ['protocol/ never imports page-worker/', 'protocol/probe.ts', '../page-worker/messages.ts'],
  ['page-worker/ never imports src/', 'page-worker/probe.ts', '../src/client/idb-kv.ts'],
  ['page-worker/ never imports sw/', 'page-worker/probe.ts', '../sw/keystore.ts'],
  ['page-worker/ never imports relay/', 'page-worker/probe.ts', '../relay/main.ts'],
  ['page-worker/ imports no Node built-ins', 'page-worker/probe.ts', 'node:fs'],
  ['page-worker tests never import sw/', 'page-worker/probe.test.ts', '../sw/keystore.ts'],
  ['relay/ never imports page-worker/', 'relay/probe.ts', '../page-worker/messages.ts'],
  ['machine/ never imports page-worker/', 'machine/probe.ts', '../page-worker/messages.ts'],
  ['device/ never imports page-worker/', 'device/probe.ts', '../page-worker/messages.ts'],
  ['bench/ never imports page-worker/', 'bench/probe.ts', '../page-worker/messages.ts'],
  ['src/ imports only protocol/: relay', 'src/probe.ts', '../relay/main.ts'],
  ['src/ imports only protocol/: sw', 'src/probe.ts', '../sw/sw.ts'],
  ['src/ imports only protocol/: machine', 'src/client/probe.ts', '../../machine/index.ts'],
  ['sw/ imports only protocol/: src', 'sw/probe.ts', '../src/App.tsx'],
  ['sw/ imports only protocol/: relay', 'sw/probe.ts', '../relay/main.ts'],
  ['relay/ never imports machine/', 'relay/probe.ts', '../machine/index.ts'],
  ['relay/ never imports device/', 'relay/probe.ts', '../device/lane/index.ts'],
  ['relay/ never imports src/', 'relay/probe.ts', '../src/App.tsx'],
  ['device/ never imports machine/', 'device/executor/probe.ts', '../../machine/index.ts'],
  ['device/ never imports relay/', 'device/probe.ts', '../relay/main.ts'],
  ['bench/ never imports relay/ code (it starts processes)', 'bench/probe.ts', '../relay/main.ts'],
  ['machine/ never imports relay/', 'machine/probe.ts', '../relay/main.ts'],
  ['machine/ never imports the executor folder', 'machine/probe.ts', '../device/executor/main.ts'],
  ['machine/ never imports an executor file', 'machine/probe.ts', '../device/executor.ts'],
  ['machine/ never imports the device index', 'machine/probe.ts', '../device/index.ts'],
  [
    'machine/ never imports the executor from a subfolder',
    'machine/agent/probe.ts',
    '../../device/executor/x.ts',
  ],
];

const PASSES: [string, string, string][] = [
  ['protocol/ may use tweetnacl', 'protocol/probe.ts', 'tweetnacl'],
  ['protocol/ may import itself', 'protocol/probe.ts', './bytes.ts'],
  ['protocol tests may use Node built-ins', 'protocol/probe.test.ts', 'node:crypto'],
  ['src/ may import protocol/', 'src/client/probe.ts', '../../protocol/index.ts'],
  ['sw/ may import protocol/', 'sw/probe.ts', '../protocol/index.ts'],
  ['src/ may import page-worker/', 'src/client/probe.ts', '../../page-worker/messages.ts'],
  ['sw/ may import page-worker/', 'sw/logic/probe.ts', '../../page-worker/store-layout.ts'],
  ['page-worker/ may import protocol/', 'page-worker/probe.ts', '../protocol/result.ts'],
  ['page-worker/ may import itself', 'page-worker/probe.ts', './language.ts'],
  ['page-worker tests may use Node built-ins', 'page-worker/probe.test.ts', 'node:path'],
  ['relay/ may import protocol/', 'relay/probe.ts', '../protocol/index.ts'],
  ['relay/ may use Node built-ins', 'relay/probe.ts', 'node:http'],
  ['machine/ may import protocol/', 'machine/probe.ts', '../protocol/index.ts'],
  ['machine/ may use the device lane', 'machine/probe.ts', '../device/lane/index.ts'],
  ['machine/ may use the device wire', 'machine/probe.ts', '../device/wire/frames.ts'],
  [
    'machine/ may use the lane from a subfolder',
    'machine/agent/probe.ts',
    '../../device/lane/x.ts',
  ],
  ['machine/ may have its own device-named module', 'machine/probe.ts', './device-view.ts'],
  ['device/ may import protocol/', 'device/lane/probe.ts', '../../protocol/index.ts'],
];

describe('import rules of docs/architecture.md (ESLint Node API on probe sources)', () => {
  it.each(FAILS)('%s — fails lint', async (_rule, file, specifier) => {
    expect(await restricted(file, specifier)).toBe(true);
  });
  it.each(PASSES)('%s — passes lint', async (_rule, file, specifier) => {
    expect(await restricted(file, specifier)).toBe(false);
  });
});
