// Reading /proc is the only reliable way to know a process group is gone on these machines:
// orphans are not reaped, so kill(-pgid, 0) keeps succeeding for zombies. State Z (zombie) and
// X (dead) count as dead.
import { readdirSync, readFileSync } from 'node:fs';

export type ProcStat = {
  readonly pid: number;
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  /** Clock ticks after boot; with the pid it identifies one process across pid reuse. */
  readonly startTime: string;
};

export const parseProcStat = (pid: number, text: string): ProcStat | null => {
  // The command name is in parentheses and may itself contain spaces and ')'.
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const rest = text.slice(close + 2).split(' ');
  const state = rest[0];
  const ppid = Number(rest[1]);
  const pgrp = Number(rest[2]);
  const startTime = rest[19];
  if (!state || !Number.isSafeInteger(ppid) || !Number.isSafeInteger(pgrp) || !startTime) {
    return null;
  }
  return { pid, state, ppid, pgrp, startTime };
};

export const readProcStat = (pid: number): ProcStat | null => {
  try {
    return parseProcStat(pid, readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return null;
  }
};

export const isDeadState = (state: string): boolean => state === 'Z' || state === 'X';

/** A process is alive when /proc has it and it is neither a zombie nor dead. */
export const isProcessAlive = (pid: number, startTime?: string): boolean => {
  const s = readProcStat(pid);
  if (!s || isDeadState(s.state)) return false;
  return startTime === undefined || s.startTime === startTime;
};

/** Every live (non-zombie) process /proc shows, in one pass. */
export const liveProcesses = (): ProcStat[] => {
  const live: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const s = readProcStat(Number(name));
    if (s && !isDeadState(s.state)) live.push(s);
  }
  return live;
};

/** The live (non-zombie) members of a process group. */
export const liveGroupMembers = (pgid: number): number[] =>
  liveProcesses().flatMap((s) => (s.pgrp === pgid ? [s.pid] : []));

export const isGroupGone = (pgid: number): boolean => liveGroupMembers(pgid).length === 0;

/** Linux reports /proc/<pid>/stat start times in USER_HZ, which is 100 on every Linux ABI. */
export const USER_HZ = 100;

/** How far the wall clock may have drifted from the boot clock /proc start times count on. */
const WALL_CLOCK_SLACK_MS = 60_000;

/**
 * A wall-clock time as a /proc start time (clock ticks after boot), minus a generous slack, so
 * that every process started at or after it has a start time at least this. 0 when unknown.
 */
export const startTicksAt = (wallMs: number): number => {
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'latin1'))?.[1];
    if (!btime) return 0;
    const sinceBootMs = wallMs - Number(btime) * 1000 - WALL_CLOCK_SLACK_MS;
    return Math.max(0, Math.floor((sinceBootMs * USER_HZ) / 1000));
  } catch {
    return 0;
  }
};
