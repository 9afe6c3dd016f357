import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkCwd, isInside } from './cwd-guard.ts';
import { addWorktree } from './worktree.ts';
import { git, makeGitRepo } from '../test-support/git-repo.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

describe('dispatch worktree:true', () => {
  it('inside a git repository: a real `git worktree add`, kept out of `git status`', async () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    makeGitRepo(t.dir);
    mkdirSync(path.join(t.dir, 'pkg'));
    const r = await addWorktree(path.join(t.dir, 'pkg'), 'abc123', [t.dir]);
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
    expect(await addWorktree(t.dir, 'x', [t.dir])).toEqual({
      ok: true,
      kind: 'not-a-git-repo',
      cwd: t.dir,
    });
  });

  it('a failing `git worktree add` is an error, not a silent fallback', async () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    makeGitRepo(t.dir);
    expect((await addWorktree(t.dir, 'dup', [t.dir])).ok).toBe(true);
    const again = await addWorktree(t.dir, 'dup', [t.dir]);
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.message).toContain('git worktree add failed');
  });
});

const dispatchBranches = (repo: string) => git(repo, 'branch', '--list', 'dispatch/*').trim();
const excludes = (repo: string) => {
  try {
    return readFileSync(path.join(repo, '.git/info/exclude'), 'utf8');
  } catch {
    return '';
  }
};

/** A fresh git repository with an (untracked) `sub` folder. */
function repoWithSub() {
  const t = makeTmpDir();
  cleanup = t.cleanup;
  const repo = path.join(t.dir, 'repo');
  const sub = path.join(repo, 'sub');
  mkdirSync(sub, { recursive: true });
  makeGitRepo(repo);
  return { dir: t.dir, repo, sub };
}

describe('H4: a worktree never lands outside the allowed root', () => {
  it('H4: a repository whose top folder lies outside the allowed root gets no worktree (cwd-not-allowed) and nothing is written', async () => {
    const { repo, sub } = repoWithSub();
    const before = excludes(repo);
    const r = await addWorktree(sub, 'outside1', [sub]);
    expect(r).toMatchObject({ ok: false, reason: 'cwd-not-allowed' });
    if (!r.ok) expect(r.message).toContain(`top folder ${repo} lies outside the allowed root`);
    expect(dispatchBranches(repo)).toBe('');
    expect(excludes(repo)).toBe(before);
    expect(existsSync(path.join(repo, '.dsh-worktrees'))).toBe(false);
    expect(git(repo, 'worktree', 'list').trim().split('\n')).toHaveLength(1);
  });

  it('H4: a repository inside the allowed root gets its worktree inside that root, and the folder passes the cwd guard', async () => {
    const { dir, repo, sub } = repoWithSub();
    const r = await addWorktree(sub, 'inside1', [dir]);
    expect(r).toMatchObject({ ok: true, kind: 'worktree', branch: 'dispatch/inside1' });
    if (!r.ok || r.kind !== 'worktree') return;
    expect(r.worktreePath).toBe(path.join(repo, '.dsh-worktrees', 'inside1'));
    expect(r.cwd).toBe(path.join(r.worktreePath, 'sub'));
    expect(isInside(r.cwd, dir)).toBe(true);
    expect(await checkCwd(r.cwd, [dir])).toEqual({ ok: true, cwd: r.cwd });
  });

  it('H4: a root that is a linked worktree of a repository elsewhere is refused too (its branches live outside the root)', async () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    const main = path.join(t.dir, 'main');
    mkdirSync(main);
    makeGitRepo(main);
    const linked = path.join(t.dir, 'linked');
    git(main, 'worktree', 'add', '-q', '-b', 'side', linked);
    const r = await addWorktree(linked, 'outside2', [linked]);
    expect(r).toMatchObject({ ok: false, reason: 'cwd-not-allowed' });
    if (!r.ok) expect(r.message).toContain('git folder');
    expect(dispatchBranches(main)).toBe('');
    expect(existsSync(path.join(linked, '.dsh-worktrees'))).toBe(false);
  });

  it('H4: a worktree whose folder would lead outside the root (a committed symlink) is taken back and refused', async () => {
    const t = makeTmpDir();
    cleanup = t.cleanup;
    const root = path.join(t.dir, 'root');
    const repo = path.join(root, 'repo');
    const elsewhere = path.join(t.dir, 'elsewhere');
    mkdirSync(repo, { recursive: true });
    mkdirSync(elsewhere);
    makeGitRepo(repo);
    // HEAD has `pkg` as a symlink out of the root; the checkout has a real folder there.
    symlinkSync(elsewhere, path.join(repo, 'pkg'));
    git(repo, 'add', 'pkg');
    git(repo, 'commit', '-q', '-m', 'link');
    rmSync(path.join(repo, 'pkg'));
    mkdirSync(path.join(repo, 'pkg'));
    const r = await addWorktree(path.join(repo, 'pkg'), 'linkout', [root]);
    expect(r).toMatchObject({ ok: false, reason: 'cwd-not-allowed' });
    expect(dispatchBranches(repo)).toBe('');
    expect(existsSync(path.join(repo, '.dsh-worktrees', 'linkout'))).toBe(false);
  });
});
