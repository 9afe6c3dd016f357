// `npm start` as a user runs it, for the tests: a real npm process in its own process group, on
// ports of the test's own, in a data folder of the test's own.
import { readdirSync, readFileSync } from 'node:fs';
import { runToEnd, startProcess, whenReady, type TestProcess } from '../../testkit/process.ts';
import { isGone } from '../../testkit/process-group.ts';
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

/** True while `pid` runs (a zombie does not). */
export const alive = (pid: number): boolean => !isGone(pid);

export function pgidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/** npm in its own group (testkit/process.ts), on the test's environment; its stdin stays open. */
function spawnNpmStart(env: Record<string, string>, args: readonly string[]): TestProcess {
  return startProcess('npm start', 'npm', ['start', ...(args.length ? ['--', ...args] : [])], {
    cwd: REPO,
    env,
  });
}

/** Both streams, line by line as they came. */
const outputOf = (p: TestProcess) => p.lines.join('\n');

/** `npm start` until it is ready; interrupt() is Ctrl-C. */
export async function npmStart(env: Record<string, string>, args: readonly string[] = []) {
  const p = spawnNpmStart(env, args);
  await whenReady(
    p,
    new RegExp(READY_LINE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
    READY_TIMEOUT_MS,
  );
  return {
    pid: p.pid,
    output: () => outputOf(p),
    /** Ctrl-C: SIGINT to npm's group; resolves with npm's exit code and what was running. */
    async interrupt() {
      const tree = descendants(p.pid);
      const groups = [...new Set(tree.filter(alive).map(pgidOf))];
      p.signal('SIGINT');
      const { code } = await p.closed;
      return { code, tree, groups };
    },
  };
}

/** `npm start` that is expected to refuse and exit by itself: its code and everything it said. */
export async function npmStartRefused(
  env: Record<string, string>,
  args: readonly string[] = [],
): Promise<{ code: number | null; output: string; tree: number[] }> {
  const p = spawnNpmStart(env, args);
  const { code } = await runToEnd(p, REFUSAL_TIMEOUT_MS);
  return { code, output: outputOf(p), tree: descendants(p.pid).filter(alive) };
}
