// X3: every command runs in its own process group (a new session via setsid), so cancel,
// timeout and the generation fence can signal the whole group, grandchildren included.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { GROUP_POLL_INTERVAL_MS, KILL_CONFIRM_MS } from '../limits.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import { isGroupGone, readProcStat } from './proc-stat.ts';

export type GroupExit = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

export type SpawnedGroup = {
  readonly pgid: number;
  readonly startTime: string;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The shell (group leader) exited; Node reaps it. */
  readonly exited: Promise<GroupExit>;
};

export type SpawnFailure = { readonly error: NodeJS.ErrnoException };

/** Spawns `shell -c command` as the leader of a new process group. */
export const spawnGroup = (
  shell: string,
  command: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<SpawnedGroup | SpawnFailure> =>
  new Promise((resolve) => {
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(shell, ['-c', command], {
        cwd: opts.cwd,
        env: opts.env,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      resolve({ error: e as NodeJS.ErrnoException });
      return;
    }
    const exited = new Promise<GroupExit>((res) =>
      child.once('exit', (code, signal) => res({ code, signal })),
    );
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    child.once('spawn', () => {
      const pid = child.pid as number;
      resolve({
        pgid: pid,
        startTime: readProcStat(pid)?.startTime ?? '',
        stdout: child.stdout,
        stderr: child.stderr,
        exited,
      });
    });
  });

const signalGroup = (pgid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing left in the group (not even a zombie) — which is what we want.
  }
};

/** Polls /proc until the group has no live member or maxMs has passed (real time: an OS fact). */
export const waitGroupGone = async (
  pgid: number,
  maxMs: number,
  stop: () => boolean = () => false,
): Promise<boolean> => {
  const deadline = Date.now() + maxMs;
  for (;;) {
    if (isGroupGone(pgid)) return true;
    if (Date.now() >= deadline || stop()) return false;
    await new Promise((r) => setTimeout(r, GROUP_POLL_INTERVAL_MS));
  }
};

/**
 * TERM the whole group, wait up to graceMs (on the injected clock) for it to go, then KILL and
 * confirm. Resolves true only when no live member remains — the precondition for answering
 * `timeout` or `killed` (X3).
 */
export const killGroup = async (pgid: number, graceMs: number, clock: Clock): Promise<boolean> => {
  if (isGroupGone(pgid)) return true;
  signalGroup(pgid, 'SIGTERM');
  let graceOver = false;
  let timer: TimerHandle | undefined;
  const goneInGrace = await Promise.race([
    waitGroupGone(pgid, Number.MAX_SAFE_INTEGER, () => graceOver),
    new Promise<false>((resolve) => {
      timer = clock.after(graceMs, () => {
        graceOver = true;
        resolve(false);
      });
    }),
  ]);
  timer?.cancel();
  graceOver = true;
  if (goneInGrace || isGroupGone(pgid)) return true;
  signalGroup(pgid, 'SIGKILL');
  return waitGroupGone(pgid, KILL_CONFIRM_MS);
};
