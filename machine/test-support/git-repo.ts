import { execFileSync } from 'node:child_process';

/** Runs git in `cwd` with an identity of its own (a machine where git was never configured). */
export const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@t',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@t',
    },
  });

/** `git init` with one commit, so `git worktree add` has a HEAD to branch from. */
export function makeGitRepo(dir: string): void {
  const run = (...args: string[]) => git(dir, ...args);
  run('init', '-q', '-b', 'main');
  execFileSync('sh', ['-c', 'echo hello > README.md'], { cwd: dir });
  run('add', '.');
  run('commit', '-q', '-m', 'first');
}
