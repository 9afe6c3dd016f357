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
  ['protocol/ imports nothing of ours: machine', 'protocol/probe.ts', '../machine/machine.ts'],
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
  ['src/ imports only protocol/: machine', 'src/client/probe.ts', '../../machine/machine.ts'],
  ['sw/ imports only protocol/: src', 'sw/probe.ts', '../src/App.tsx'],
  ['sw/ imports only protocol/: relay', 'sw/probe.ts', '../relay/main.ts'],
  ['relay/ never imports machine/', 'relay/probe.ts', '../machine/machine.ts'],
  ['relay/ never imports device/', 'relay/probe.ts', '../device/lane/index.ts'],
  ['relay/ never imports src/', 'relay/probe.ts', '../src/App.tsx'],
  ['device/ never imports machine/', 'device/executor/probe.ts', '../../machine/machine.ts'],
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
  ['T1: relay/ production code never imports testkit/', 'relay/probe.ts', '../testkit/tmp.ts'],
  ['T1: machine/ production code never imports testkit/', 'machine/probe.ts', '../testkit/x.ts'],
  [
    'T1: device/ production code never imports testkit/',
    'device/lane/probe.ts',
    '../../testkit/process.ts',
  ],
  ['T1: protocol/ production code never imports testkit/', 'protocol/probe.ts', '../testkit/x.ts'],
  ['T1: src/ production code never imports testkit/', 'src/client/probe.ts', '../../testkit/x.ts'],
  ['T1: src/ components never import testkit/', 'src/probe.tsx', '../testkit/x.ts'],
  ['T1: sw/ production code never imports testkit/', 'sw/logic/probe.ts', '../../testkit/x.ts'],
  ['T1: testkit/ never imports a part it tests', 'testkit/probe.ts', '../relay/main.ts'],
  // machine/ by concern: every rule holds in each of its folders, not only at its root.
  ...['wire', 'links', 'phones', 'approvals', 'sessions', 'dispatch', 'desk', 'agent'].flatMap(
    (f): [string, string, string][] => [
      [
        `T1: machine/${f}/ production code never imports testkit/`,
        `machine/${f}/probe.ts`,
        '../../testkit/until.ts',
      ],
      [`machine/${f}/ never imports relay/`, `machine/${f}/probe.ts`, '../../relay/main.ts'],
      [`machine/${f}/ never imports src/`, `machine/${f}/probe.ts`, '../../src/App.tsx'],
      [
        `machine/${f}/ never imports the executor`,
        `machine/${f}/probe.ts`,
        '../../device/executor/main.ts',
      ],
      [
        `T4: machine/${f}/ production code never imports test-support/`,
        `machine/${f}/probe.ts`,
        '../test-support/world.ts',
      ],
    ],
  ),
  [
    'T4: machine/ production code at its root never imports test-support/',
    'machine/probe.ts',
    './test-support/world.ts',
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
  ['T1: relay/ tests may use testkit/', 'relay/probe.test.ts', '../testkit/tmp.ts'],
  ['T1: relay/ test-support may use testkit/', 'relay/test-support/p.ts', '../../testkit/x.ts'],
  ['T1: machine/ tests may use testkit/', 'machine/probe.test.ts', '../testkit/x.ts'],
  [
    'T1: machine/ test-support may use testkit/',
    'machine/test-support/probe.ts',
    '../../testkit/x.ts',
  ],
  ['T1: device/ tests may use testkit/', 'device/lane/probe.test.ts', '../../testkit/x.ts'],
  ['T1: protocol/ tests may use testkit/', 'protocol/probe.test.ts', '../testkit/x.ts'],
  ['T1: sw/ tests may use testkit/', 'sw/logic/probe.test.ts', '../../testkit/x.ts'],
  ['T1: e2e/ may use testkit/', 'e2e/support/probe.ts', '../../testkit/process.ts'],
  ['T1: bench/ may use testkit/', 'bench/probe.ts', '../testkit/process.ts'],
  [
    "T1: a part's own benchmarks may use testkit/",
    'device/executor/bench/probe.ts',
    '../../../testkit/tmp.ts',
  ],
  ['T1: scripts/ may use testkit/', 'scripts/probe.ts', '../testkit/process.ts'],
  ['T1: testkit/ may use protocol/', 'testkit/probe.ts', '../protocol/index.ts'],
  ...['wire', 'links', 'phones', 'approvals', 'sessions', 'dispatch', 'desk'].flatMap(
    (f): [string, string, string][] => [
      [`machine/${f}/ may import protocol/`, `machine/${f}/probe.ts`, '../../protocol/index.ts'],
      [`machine/${f}/ may import another machine folder`, `machine/${f}/probe.ts`, '../core.ts'],
      [
        `machine/${f}/ may use the device lane`,
        `machine/${f}/probe.ts`,
        '../../device/lane/index.ts',
      ],
      [
        `T1: machine/${f}/ tests may use testkit/`,
        `machine/${f}/probe.test.ts`,
        '../../testkit/until.ts',
      ],
      [
        `T4: machine/${f}/ tests may use test-support/`,
        `machine/${f}/probe.test.ts`,
        '../test-support/world.ts',
      ],
    ],
  ),
  [
    'T4: machine/test-support/ may use its own files',
    'machine/test-support/probe.ts',
    './world.ts',
  ],
];

describe('import rules of docs/architecture.md (ESLint Node API on probe sources)', () => {
  it.each(FAILS)('%s — fails lint', async (_rule, file, specifier) => {
    expect(await restricted(file, specifier)).toBe(true);
  });
  it.each(PASSES)('%s — passes lint', async (_rule, file, specifier) => {
    expect(await restricted(file, specifier)).toBe(false);
  });
});
