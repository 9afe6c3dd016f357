import { readdirSync, readFileSync } from 'node:fs';

// Linux /proc views of a process tree. Codex runs each command in a process group (and session)
// of its own, so signalling the app-server's group does not reach them: closing walks the tree
// by parent pid first, then signals every group in it. PID 1 here may never reap an orphan, so a
// zombie counts as gone (it runs nothing and holds nothing but its table entry).

type Stat = { pid: number; state: string; ppid: number; pgrp: number };

function stat(pid: string | number): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
  const [state = '', ppid, pgrp] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { pid: Number(pid), state, ppid: Number(ppid), pgrp: Number(pgrp) };
}

/** True when `pid` no longer runs (absent, a zombie, or dead). */
export function isGone(pid: number): boolean {
  const s = stat(pid);
  return s === null || s.state === 'Z' || s.state === 'X';
}

/** `root` and every live process below it, with their groups. */
export function treeOf(root: number): Stat[] {
  const all: Stat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(name);
    if (s !== null && s.state !== 'Z' && s.state !== 'X') all.push(s);
  }
  const found = all.filter((s) => s.pid === root);
  for (let i = 0; i < found.length; i++) {
    for (const s of all) if (s.ppid === found[i]!.pid) found.push(s);
  }
  return found;
}

/** Sends `signal` to every group in `tree` and to each process in it; the gone are skipped. */
export function signalTree(tree: readonly Stat[], signal: NodeJS.Signals): void {
  // Never our own group: a descendant that stayed in it would take the machine down with it.
  const own = stat(process.pid)?.pgrp;
  const groups = new Set(tree.map((s) => s.pgrp).filter((g) => g > 1 && g !== own));
  for (const g of groups) {
    try {
      process.kill(-g, signal);
    } catch {
      // the group is already gone
    }
  }
  for (const s of tree) {
    try {
      process.kill(s.pid, signal);
    } catch {
      // already gone
    }
  }
}
