import { execFile } from 'node:child_process';
import { appendFile, mkdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { checkCwd, isInside } from './cwd-guard.ts';

// `worktree:true` gives a dispatched session its own `git worktree`, so the agent's edits never
// touch the user's checkout. Outside a repository the session runs in place (with a note).
//
// H4: a worktree is a checkout of the whole repository, and adding one writes a branch and
// `info/exclude` into the repository's git folder. So it is made only when the repository's top
// folder and its git folder both lie inside the allowed root that holds the session's folder;
// otherwise the dispatch is refused (cwd-not-allowed) before anything is written. The folder the
// session will run in is checked with the cwd guard once more after it exists.

function git(
  args: string[],
  cwd: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr || error?.message || '') });
    });
  });
}

/** The repository's top folder, or null when `cwd` is not inside a git work tree. */
export async function gitTopLevel(cwd: string): Promise<string | null> {
  const r = await git(['rev-parse', '--show-toplevel'], cwd);
  return r.code === 0 ? r.stdout.trim() : null;
}

export type WorktreeResult =
  | { ok: true; kind: 'worktree'; cwd: string; worktreePath: string; branch: string }
  | { ok: true; kind: 'not-a-git-repo'; cwd: string }
  | { ok: false; reason: 'worktree-failed' | 'cwd-not-allowed'; message: string };

const failed = (message: string): WorktreeResult => ({
  ok: false,
  reason: 'worktree-failed',
  message: `git worktree add failed: ${message}`,
});

export const WORKTREES_FOLDER = '.dsh-worktrees';

/** Keeps the worktrees folder out of `git status` without touching a tracked .gitignore. */
async function excludeWorktrees(gitDir: string): Promise<void> {
  const infoDir = path.join(gitDir, 'info');
  const exclude = path.join(infoDir, 'exclude');
  const line = `/${WORKTREES_FOLDER}/`;
  const current = await readFile(exclude, 'utf8').catch(() => '');
  if (current.split('\n').includes(line)) return;
  await mkdir(infoDir, { recursive: true });
  await appendFile(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}${line}\n`);
}

/** True when `dir` exists or was made, its deepest existing ancestor being inside `within`. */
async function madeInside(dir: string, within: string): Promise<boolean> {
  let existing = dir;
  const exists = (p: string) =>
    stat(p).then(
      () => true,
      () => false,
    );
  while (!(await exists(existing))) existing = path.dirname(existing);
  if (existing === dir) return true;
  const real = await realpath(existing).catch(() => null);
  if (real === null || !isInside(real, within)) return false;
  return mkdir(path.join(real, path.relative(existing, dir)), { recursive: true }).then(
    () => true,
    () => false,
  );
}

/** The repository's git folder shared by all its worktrees (where branches live), real path. */
async function commonDir(top: string): Promise<string | null> {
  const r = await git(['rev-parse', '--git-common-dir'], top);
  if (r.code !== 0) return null;
  return realpath(path.resolve(top, r.stdout.trim())).catch(() => null);
}

/**
 * Adds `<repo>/.dsh-worktrees/<id>` on a new branch `dispatch/<id>` and returns the folder the
 * session runs in (the same subfolder of the new worktree as `cwd` was of the repo), provided
 * the repository lies inside one of `roots` that holds `cwd` (H4).
 */
export async function addWorktree(
  cwd: string,
  shortId: string,
  roots: readonly string[],
): Promise<WorktreeResult> {
  const shown = await gitTopLevel(cwd);
  if (shown === null) return { ok: true, kind: 'not-a-git-repo', cwd };
  const top = await realpath(shown).catch(() => shown);
  const gitDir = await commonDir(top);
  if (gitDir === null) return failed("cannot find the repository's git folder");
  const root = roots.find((r) => isInside(cwd, r) && isInside(top, r) && isInside(gitDir, r));
  if (root === undefined) {
    const outside = roots.some((r) => isInside(cwd, r) && isInside(top, r)) ? gitDir : top;
    return {
      ok: false,
      reason: 'cwd-not-allowed',
      message:
        `no worktree: the repository's ${outside === top ? 'top folder' : 'git folder'} ${outside} ` +
        'lies outside the allowed root of this folder, and a worktree would check out and write ' +
        'there. Dispatch without a worktree, or allow the whole repository as a root.',
    };
  }
  const head = await git(['rev-parse', '--verify', 'HEAD'], top);
  if (head.code !== 0) return failed('the repository has no commit yet');
  const parent = path.join(top, WORKTREES_FOLDER);
  const worktreePath = path.join(parent, shortId);
  const branch = `dispatch/${shortId}`;
  try {
    await mkdir(parent, { recursive: true });
    await excludeWorktrees(gitDir);
  } catch (e) {
    return failed((e as Error).message);
  }
  const r = await git(['worktree', 'add', '-b', branch, worktreePath, 'HEAD'], top);
  if (r.code !== 0) return failed(r.stderr.trim().slice(0, 500));
  const runIn = path.join(worktreePath, path.relative(top, cwd));
  // Made, but not usable where it may be: taken back (worktree and branch), then refused.
  const takeBack = async (result: WorktreeResult): Promise<WorktreeResult> => {
    await git(['worktree', 'remove', '--force', worktreePath], top);
    await git(['branch', '-D', branch], top);
    return result;
  };
  // A folder the checkout lacks (untracked, or empty) is made, but only under a real folder of
  // the new worktree: never through a committed symlink.
  if (!(await madeInside(runIn, worktreePath)))
    return takeBack(failed(`${runIn} cannot be made inside the new worktree`));
  const guard = await checkCwd(runIn, [root]);
  if (!guard.ok)
    return takeBack({
      ok: false,
      reason: 'cwd-not-allowed',
      message: `no worktree: ${guard.message}`,
    });
  return { ok: true, kind: 'worktree', cwd: guard.cwd, worktreePath, branch };
}
