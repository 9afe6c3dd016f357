// `npm start` as a user runs it, for the tests: a real npm process in its own process group, on
// ports of the test's own, in a data folder of the test's own.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { REPO } from '../start/children.ts';
import { READY_LINE } from '../start/config.ts';

export const READY_TIMEOUT_MS = 150_000;
const REFUSAL_TIMEOUT_MS = 30_000;

/** Every live process whose parent chain leads to `root` (root included). */
export function descendants(root: number): number[] {
  const parentOf = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parentOf.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (!found.has(pid) && found.has(ppid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}

export function pgidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

function spawnNpmStart(env: Record<string, string>, args: readonly string[]) {
  const child = spawn('npm', ['start', ...(args.length ? ['--', ...args] : [])], {
    cwd: REPO,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
  return { child, pid: child.pid!, output: () => out, exited };
}

/** `npm start` until it is ready; interrupt() is Ctrl-C. */
export async function npmStart(env: Record<string, string>, args: readonly string[] = []) {
  const { child, pid, output, exited } = spawnNpmStart(env, args);
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(
      () => reject(new Error(`npm start not ready:\n${output()}`)),
      READY_TIMEOUT_MS,
    );
    const check = () => {
      if (output().includes(READY_LINE)) {
        clearTimeout(t);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(t);
      reject(new Error(`npm start exited before it was ready:\n${output()}`));
    });
  });
  return {
    pid,
    output,
    exited,
    /** Ctrl-C: SIGINT to npm's group; resolves with npm's exit code and what was running. */
    async interrupt() {
      const tree = descendants(pid);
      const groups = [...new Set(tree.filter(alive).map(pgidOf))];
      process.kill(-pid, 'SIGINT');
      const code = await exited;
      return { code, tree, groups };
    },
  };
}

/** `npm start` that is expected to refuse and exit by itself: its code and everything it said. */
export async function npmStartRefused(
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<{ code: number | null; output: string; tree: number[] }> {
  const { pid, output, exited } = spawnNpmStart(env, args);
  const timer = setTimeout(() => process.kill(-pid, 'SIGKILL'), REFUSAL_TIMEOUT_MS);
  const code = await exited;
  clearTimeout(timer);
  return { code, output: output(), tree: descendants(pid).filter(alive) };
}
