import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

// A real agent's process and everything it started (its tools, their children). The agent's own
// process is started in a group of its own, but a tool may make another group: so the tree is
// read from /proc before anything is signalled (an orphan's parent is gone afterwards).

function parentOf(pid: string): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state = '', ppid = ''] = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' || state === 'X' ? null : Number(ppid);
  } catch {
    return null;
  }
}

/** `root` and every live descendant of it. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const ppid = parentOf(name);
    if (ppid === null) continue;
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/** SIGKILLs `root`'s whole tree and its process group; quiet about what is already gone. */
export function killTree(root: number): void {
  const pids = processTree(root);
  try {
    process.kill(-root, 'SIGKILL');
  } catch {
    // the group is gone
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/**
 * E10 faults: a mark in the environment of every agent process the machine starts, inherited by
 * whatever it runs. A command in a session of its own whose agent died is an orphan: no parent
 * pid leads to it any more, but its environment still names the run it belongs to. (A process
 * that wipes its environment, `env -i`, loses the mark: that one is out of reach.)
 */
export const RUN_MARK_ENV = 'DSH_DISPATCH_RUN';

/** A fresh mark for one agent session. */
export const newRunMark = (): string => randomUUID();

/** Every live process (but this one) whose environment carries `mark`. */
export function markedProcesses(mark: string): number[] {
  const needle = Buffer.from(`${RUN_MARK_ENV}=${mark}\0`);
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${name}/environ`);
    } catch {
      continue; // gone, or not ours to read
    }
    if (env.includes(needle) && parentOf(name) !== null) out.push(Number(name));
  }
  return out;
}

/** SIGKILLs every marked process and the groups they lead. */
export function killMarked(mark: string): void {
  for (const pid of markedProcesses(mark)) killTree(pid);
}

const GONE_POLL_MS = 10;

/**
 * Until no process carrying `mark` runs (a zombie counts as gone), for at most `limitMs`: a
 * SIGKILL is delivered at once but acted on when the process is next scheduled, so a turn that
 * says its processes are gone waits for them. False when some are still there at the limit.
 */
export async function whenMarkedGone(mark: string, limitMs: number): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (markedProcesses(mark).length > 0) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, GONE_POLL_MS));
  }
  return true;
}
