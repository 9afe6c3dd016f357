import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findStrayRefs, scanTrackedFiles } from './stray-refs.ts';

// M1: a tracked file that cites an issue number or a folder outside the repository fails lint,
// naming file and line. The planted references are assembled at run time so that this file does
// not trip the check itself.
const ISSUE = ['iss', 'ue'].join('');
const planted = {
  section: `${ISSUE} 12 §3`,
  bare: `(${ISSUE[0]!.toUpperCase()}${ISSUE.slice(1)} 10)`,
  shared: ['..', 'shared', 'spec', 'x.md'].join('/'),
};

const repo = mkdtempSync(path.join(os.tmpdir(), 'dsh-stray-refs-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe' });
git('init', '-q');
const put = (file: string, content: string | Buffer, track = true) => {
  mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
  writeFileSync(path.join(repo, file), content);
  if (track) git('add', file);
};
put('clean.ts', '// D10: a decision is kept as Sent until the machine answers.\n');
put('src/a.ts', `const x = 1;\n// see ${planted.section}\n`);
put('docs/b.md', `# B\n\nSpec: \`${planted.shared}\`.\nBenchmarks ${planted.bare}.\n`);
put(
  'img.png',
  Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0]), Buffer.from(planted.section)]),
);
put('notes.txt', `untracked: ${planted.section}\n`, false);

describe('M1: no issue numbers and no outside folders in tracked files', () => {
  it('M1: each planted reference is found with its file and line; binaries and untracked files are not read', () => {
    const found = scanTrackedFiles(repo).map((r) => `${r.file}:${r.line}:${r.code}`);
    expect(found.sort()).toEqual([
      'docs/b.md:3:outside-path',
      'docs/b.md:4:issue-number',
      'src/a.ts:2:issue-number',
    ]);
  });

  it('M1: rule ids, RFC sections and the spec-section numbers of docs/device.md pass', () => {
    const text =
      'R14, X3, E1, U2.3, H7a, P4, A8, RFC 6455 §5.2, §1.1 enrollment, #issues, tissue 5';
    expect(findStrayRefs('x.ts', text)).toEqual([]);
  });

  it('M1: `tsx scripts/check-refs.ts` exits 1 and names file and line; a clean repository exits 0', () => {
    const script = path.resolve('scripts/check-refs.ts');
    const run = () =>
      spawnSync(process.execPath, ['--import', 'tsx', script, repo], { encoding: 'utf8' });
    const failed = run();
    expect(failed.status).toBe(1);
    expect(failed.stderr).toContain(`src/a.ts:2: "${planted.section.slice(0, -3)}"`);
    expect(failed.stderr).toContain('docs/b.md:3:');
    git('rm', '-q', '--cached', 'src/a.ts', 'docs/b.md');
    const clean = run();
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);
  });
});
