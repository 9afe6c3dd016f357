import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addWorktree } from './worktree.ts';
import { makeGitRepo, makeTmpDir } from './test-support/tmp.ts';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

describe('dispatch worktree:true', () => {
  it('inside a git repository: a real `git worktree add`, kept out of `git status`', async () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    makeGitRepo(t.dir);
    mkdirSync(path.join(t.dir, 'pkg'));
    const r = await addWorktree(path.join(t.dir, 'pkg'), 'abc123');
    expect(r).toMatchObject({ ok: true, kind: 'worktree', branch: 'dispatch/abc123' });
    if (!r.ok || r.kind !== 'worktree') return;
    expect(r.cwd).toBe(path.join(r.worktreePath, 'pkg'));
    expect(existsSync(path.join(r.worktreePath, 'README.md'))).toBe(true);
    const list = execFileSync('git', ['worktree', 'list'], { cwd: t.dir, encoding: 'utf8' });
    expect(list).toContain(r.worktreePath);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: t.dir, encoding: 'utf8' })).toBe(
      '',
    );
  });

  it('outside one: runs without a worktree (not-a-git-repo)', async () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    expect(await addWorktree(t.dir, 'x')).toEqual({ ok: true, kind: 'not-a-git-repo', cwd: t.dir });
  });

  it('a failing `git worktree add` is an error, not a silent fallback', async () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    makeGitRepo(t.dir);
    expect((await addWorktree(t.dir, 'dup')).ok).toBe(true);
    const again = await addWorktree(t.dir, 'dup');
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.message).toContain('git worktree add failed');
  });
});
