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
