// H7b: which live processes belong to a command, and killing all of them. The process group
// (X3) holds everything that did not leave it; a `setsid` or `setpgid` leaves it, and once its
// parent exits the kernel hands it to PID 1, so the parent link is gone too. What still finds it:
// - its cgroup, where the executor could give the command one (cgroup.ts) — inescapable;
// - a parent that is one of ours (read from /proc while the chain is alive);
// - the command's mark: a random value in the environment every descendant inherits unless it
//   scrubs its environment on purpose, read from /proc/<pid>/environ.
// Only processes started after the command's leader are considered for the last two, so nothing
// older than the command is ever taken for it. Zombies count as dead (PID 1 does not reap here).
import { readFileSync } from 'node:fs';
import type { TimerHandle, Timers } from '../../timers.ts';
import { GROUP_POLL_INTERVAL_MS, KILL_CONFIRM_MS } from '../limits.ts';
import { cgroupPids } from './cgroup.ts';
import { liveProcesses, type ProcStat } from './proc-stat.ts';

/** The environment variable carrying a command's mark (not a secret: it only tags). */
export const EXEC_MARK_ENV = 'DSH_EXEC_MARK';

export type CommandRef = {
  /** The command's process group; null when its leader's pid now belongs to someone else. */
  readonly pgid: number | null;
  /** The leader's /proc start time (clock ticks after boot): no descendant starts earlier. */
  readonly leaderStart: number;
  readonly mark: string;
  /** The command's cgroup folder, when it got one. */
  readonly cgroup: string | null;
};

const MARK_PREFIX = `${EXEC_MARK_ENV}=`;

/** The mark in a process's environment as /proc shows it (its state at its last exec), or null. */
const readMark = (pid: number): string | null => {
  let env: string;
  try {
    env = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {
    return null; // gone, or not ours to read (another user): not taken for a command
  }
  const entries = `\0${env}`; // every entry now starts after a NUL, the first one too
  const at = entries.indexOf(`\0${MARK_PREFIX}`);
  if (at < 0) return null;
  const from = at + 1 + MARK_PREFIX.length;
  const end = entries.indexOf('\0', from);
  return entries.slice(from, end < 0 ? undefined : end);
};

/**
 * Marks already read, by pid and start time, shared by every finder of this executor: each
 * process's environment is read once, however many commands end or are killed while it lives.
 */
const marks = new Map<string, string | null>();
/** Past this many remembered processes, the ones no longer alive are forgotten. */
const MARKS_PRUNE_AT = 4096;

const markOf = (s: ProcStat): string | null => {
  const key = `${s.pid}:${s.startTime}`;
  let m = marks.get(key);
  if (m === undefined) {
    m = readMark(s.pid);
    marks.set(key, m);
  }
  return m;
};

const pruneMarks = (live: readonly ProcStat[]) => {
  if (marks.size < MARKS_PRUNE_AT) return;
  const keep = new Set(live.map((s) => `${s.pid}:${s.startTime}`));
  for (const k of marks.keys()) if (!keep.has(k)) marks.delete(k);
};

/** A finder for one command: each call is one pass over /proc. */
export const makeMemberFinder = (ref: CommandRef) => (): ProcStat[] => {
  const inCgroup = ref.cgroup ? cgroupPids(ref.cgroup) : null;
  const ours = new Map<number, ProcStat>();
  const later: ProcStat[] = [];
  const live = liveProcesses();
  for (const s of live) {
    if (s.pid === process.pid) continue;
    if (s.pgrp === ref.pgid || inCgroup?.has(s.pid)) ours.set(s.pid, s);
    else if (Number(s.startTime) >= ref.leaderStart) later.push(s);
  }
  const byParent = () => {
    for (let grew = true; grew;) {
      grew = false;
      for (const s of later) {
        if (!ours.has(s.pid) && ours.has(s.ppid)) {
          ours.set(s.pid, s);
          grew = true;
        }
      }
    }
  };
  byParent();
  for (const s of later) if (!ours.has(s.pid) && markOf(s) === ref.mark) ours.set(s.pid, s);
  byParent();
  pruneMarks(live);
  return [...ours.values()];
};

const signal = (target: number, sig: NodeJS.Signals): void => {
  try {
    process.kill(target, sig);
  } catch {
    // ESRCH: already gone — which is what we want.
  }
};

/** The group as a whole (new forks included), then each member that left it, and its group. */
const signalAll = (ref: CommandRef, members: readonly ProcStat[], sig: NodeJS.Signals) => {
  if (ref.pgid !== null) signal(-ref.pgid, sig);
  for (const m of members) {
    if (m.pgrp === ref.pgid) continue;
    signal(m.pid, sig);
    if (m.pgrp === m.pid) signal(-m.pid, sig);
  }
};

const nextPoll = () => new Promise((r) => setTimeout(r, GROUP_POLL_INTERVAL_MS));

/**
 * TERM everything the command left, wait up to graceMs (on the injected clock) for it to go,
 * then KILL whatever is still found, again on every poll (a process forking while it dies is
 * caught), until nothing is left or KILL_CONFIRM_MS of real time has passed. Resolves true only
 * when no live process of the command remains — the precondition for answering `timeout` or
 * `killed` (X3).
 */
export const killCommand = async (
  ref: CommandRef,
  graceMs: number,
  clock: Timers,
  find: () => ProcStat[] = makeMemberFinder(ref),
): Promise<boolean> => {
  const first = find();
  if (first.length === 0) return true;
  signalAll(ref, first, 'SIGTERM');
  let graceOver = false;
  let timer: TimerHandle | undefined;
  const graceEnds = new Promise<void>((resolve) => {
    timer = clock.setTimeout(() => {
      graceOver = true;
      resolve();
    }, graceMs);
  });
  for (;;) {
    if (find().length === 0) {
      if (timer) clock.clearTimeout(timer);
      return true;
    }
    await Promise.race([nextPoll(), graceEnds]);
    if (graceOver) break;
  }
  const deadline = Date.now() + KILL_CONFIRM_MS;
  for (;;) {
    const live = find();
    if (live.length === 0) return true;
    if (Date.now() >= deadline) return false;
    signalAll(ref, live, 'SIGKILL');
    await nextPoll();
  }
};
