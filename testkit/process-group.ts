import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

// Linux /proc views of a process and its group. A killed process stays a zombie until its parent
// reaps it — for orphans that is PID 1, whenever it gets to it — so a zombie counts as gone: it
// runs nothing and holds nothing but its table entry.

/** `state` and `pgrp` of /proc/<pid>/stat, or null when the process is gone. */
function stat(pid: string | number): { state: string; pgrp: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
  const [state = '', , pgrp] = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state, pgrp: Number(pgrp) };
}

/** True when `pid` no longer runs (absent, a zombie, or dead). */
export function isGone(pid: number): boolean {
  const s = stat(pid);
  return s === null || s.state === 'Z' || s.state === 'X';
}

/** The processes of group `pgid` that still run, as `pid state`. */
export function liveInGroup(pgid: number): string[] {
  const live: string[] = [];
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    const s = stat(pid);
    if (s && s.pgrp === pgid && s.state !== 'Z' && s.state !== 'X') live.push(`${pid} ${s.state}`);
  }
  return live;
}

/** Signals the whole group `pgid`; false when no member is left to signal. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The live processes (not zombies) whose working folder is `cwd` and/or whose command line
 * contains `cmdline` — what an agent and the commands it started leave behind.
 */
export function liveProcesses(where: { cwd?: string; cmdline?: string }): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    const s = stat(pid);
    if (s === null || s.state === 'Z' || s.state === 'X') continue;
    try {
      if (where.cwd !== undefined && readlinkSync(`/proc/${pid}/cwd`) !== where.cwd) continue;
      if (
        where.cmdline !== undefined &&
        !readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(where.cmdline)
      )
        continue;
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    found.push(Number(pid));
  }
  return found;
}
