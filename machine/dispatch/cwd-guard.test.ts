import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCwd, expandHome, resolveRoots } from './cwd-guard.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function tmp() {
  const t = makeTmpDir();
  cleanups.push(t.cleanup);
  return t.dir;
}

describe('cwd guard: "cwd must be inside plugin-configured allowed roots"', () => {
  it('allowedRoots are absolute and ~-expanded, exactly as the guard enforces them', () => {
    expect(expandHome('~/x', '/home/u')).toBe('/home/u/x');
    expect(expandHome('~', '/home/u')).toBe('/home/u');
    const dir = tmp();
    mkdirSync(path.join(dir, 'a'));
    expect(resolveRoots(['a', dir, 'a/'], dir)).toEqual({
      ok: true,
      roots: [path.join(dir, 'a'), dir],
    });
    expect(resolveRoots(['nope'], dir)).toMatchObject({ ok: false, code: 'root-not-found' });
    writeFileSync(path.join(dir, 'f'), '');
    expect(resolveRoots(['f'], dir)).toMatchObject({ ok: false, code: 'root-not-directory' });
    expect(resolveRoots(['~'])).toEqual({ ok: true, roots: [os.homedir()] });
  });

  it('inside a root (or the root itself) is allowed; absent cwd uses the first root', async () => {
    const root = tmp();
    mkdirSync(path.join(root, 'sub'));
    expect(await checkCwd(path.join(root, 'sub'), [root])).toEqual({
      ok: true,
      cwd: path.join(root, 'sub'),
    });
    expect(await checkCwd(root, [root])).toEqual({ ok: true, cwd: root });
    expect(await checkCwd(undefined, [root])).toEqual({ ok: true, cwd: root });
  });

  it('violations are refused with cwd-not-allowed, never clamped: outside, a sibling prefix, .., a symlink out, relative, missing', async () => {
    const base = tmp();
    const root = path.join(base, 'root');
    mkdirSync(root);
    mkdirSync(path.join(base, 'root-evil'));
    symlinkSync(base, path.join(root, 'escape'));
    for (const cwd of [
      base,
      path.join(base, 'root-evil'),
      path.join(root, '..'),
      path.join(root, 'escape'),
      'root',
      path.join(root, 'missing'),
    ]) {
      const r = await checkCwd(cwd, [root]);
      expect(r, cwd).toMatchObject({ ok: false, reason: 'cwd-not-allowed' });
    }
  });

  it('no roots → dispatch-disabled', async () => {
    expect(await checkCwd('/tmp', [])).toMatchObject({ ok: false, reason: 'dispatch-disabled' });
  });
});
