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

export type ProcessInfo = Stat;

/**
 * E4: what a turn started and Codex may leave running after `turn/interrupt` — processes below
 * `root` that lead a group of their own (Codex gives each command its own session) and were not
 * there when the turn began. Commands of earlier turns and Codex's own helpers are not touched.
 */
export function startedSince(root: number, before: ReadonlySet<number>): Stat[] {
  const tree = treeOf(root);
  const rootGroup = tree[0]?.pgrp;
  const leaders = tree.filter(
    (s) => !before.has(s.pid) && s.pgrp === s.pid && s.pgrp !== rootGroup,
  );
  const found = new Map<number, Stat>();
  for (const l of leaders) for (const s of treeOf(l.pid)) found.set(s.pid, s);
  return [...found.values()];
}

const GONE_POLL_MS = 10;

/** Waits (bounded) until every process of `list` is gone; true when they all are. */
export async function whenGone(list: readonly Stat[], limitMs: number): Promise<boolean> {
  const until = Date.now() + limitMs;
  while (list.some((s) => !isGone(s.pid))) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, GONE_POLL_MS));
  }
  return true;
}

/** SIGTERM to each group (and SIGCONT, so a stopped one can act), SIGKILL after `graceMs`. */
export async function endProcesses(list: readonly Stat[], graceMs: number): Promise<void> {
  if (list.length === 0) return;
  signalTree(list, 'SIGTERM');
  signalTree(list, 'SIGCONT');
  if (await whenGone(list, graceMs)) return;
  signalTree(list, 'SIGKILL');
  await whenGone(list, graceMs);
}
