import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

// The demo workspace the machine dispatches into and the executor serves: a git repository with
// one commit, so `worktree: true` dispatches get a real `git worktree add`. Made once; a later
// start finds `.git` and leaves the user's changes alone.

const FILES: Record<string, string> = {
  'README.md':
    '# Demo workspace\n\nA playground for dsh-dispatch. Dispatch a prompt here from your phone;\n' +
    'the scripted agent lists this folder, reads this file, asks you a question, asks approval\n' +
    'to run a command (on the enrolled device executor), and writes a summary.\n',
  'hello.sh': '#!/bin/sh\necho "hello from the demo workspace on $(uname -n)"\n',
  '.gitignore': '.dsh-worktrees/\n',
};

export function ensureDemoWorkspace(dir: string): { created: boolean } {
  if (existsSync(path.join(dir, '.git'))) return { created: false };
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(FILES)) {
    const file = path.join(dir, name);
    if (!existsSync(file))
      writeFileSync(file, text, { mode: name.endsWith('.sh') ? 0o755 : 0o644 });
  }
  // An identity of its own: a machine where git was never configured must still commit.
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'dsh-dispatch demo',
    GIT_AUTHOR_EMAIL: 'demo@dsh-dispatch.invalid',
    GIT_COMMITTER_NAME: 'dsh-dispatch demo',
    GIT_COMMITTER_EMAIL: 'demo@dsh-dispatch.invalid',
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'Demo workspace');
  return { created: true };
}
