import { execFile } from 'node:child_process';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

// `worktree:true` gives a dispatched session its own `git worktree`, so the agent's edits never
// touch the user's checkout. Outside a repository the session runs in place (with a note).

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
  | { ok: false; message: string };

export const WORKTREES_FOLDER = '.dsh-worktrees';

/** Keeps the worktrees folder out of `git status` without touching a tracked .gitignore. */
async function excludeWorktrees(top: string): Promise<void> {
  const common = await git(['rev-parse', '--git-common-dir'], top);
  if (common.code !== 0) return;
  const infoDir = path.resolve(top, common.stdout.trim(), 'info');
  const exclude = path.join(infoDir, 'exclude');
  const line = `/${WORKTREES_FOLDER}/`;
  const current = await readFile(exclude, 'utf8').catch(() => '');
  if (current.split('\n').includes(line)) return;
  await mkdir(infoDir, { recursive: true });
  await appendFile(exclude, `${current === '' || current.endsWith('\n') ? '' : '\n'}${line}\n`);
}

/**
 * Adds `<repo>/.dsh-worktrees/<id>` on a new branch `dispatch/<id>` and returns the folder the
 * session runs in (the same subfolder of the new worktree as `cwd` was of the repo). Inside the
 * repository, the worktree stays inside the allowed root the dispatch was checked against.
 */
export async function addWorktree(cwd: string, shortId: string): Promise<WorktreeResult> {
  const top = await gitTopLevel(cwd);
  if (top === null) return { ok: true, kind: 'not-a-git-repo', cwd };
  const head = await git(['rev-parse', '--verify', 'HEAD'], top);
  if (head.code !== 0) {
    return { ok: false, message: 'git worktree add failed: the repository has no commit yet' };
  }
  const parent = path.join(top, WORKTREES_FOLDER);
  const worktreePath = path.join(parent, shortId);
  const branch = `dispatch/${shortId}`;
  try {
    await mkdir(parent, { recursive: true });
    await excludeWorktrees(top);
  } catch (e) {
    return { ok: false, message: `git worktree add failed: ${(e as Error).message}` };
  }
  const r = await git(['worktree', 'add', '-b', branch, worktreePath, 'HEAD'], top);
  if (r.code !== 0) {
    return { ok: false, message: `git worktree add failed: ${r.stderr.trim().slice(0, 500)}` };
  }
  const rel = path.relative(top, cwd);
  return { ok: true, kind: 'worktree', cwd: path.join(worktreePath, rel), worktreePath, branch };
}
