import { readdirSync, readFileSync } from 'node:fs';

/**
 * The processes of group `pgid` that still run (Linux /proc), as `pid state`. A killed process
 * stays a zombie until its parent reaps it — for orphans that is PID 1, whenever it gets to it —
 * so a zombie counts as gone: it runs nothing and holds nothing but its table entry.
 */
export function liveInGroup(pgid: number): string[] {
  const live: string[] = [];
  for (const pid of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') live.push(`${pid} ${state}`);
  }
  return live;
}
