// exec / execStream: the user's shell in its own process group (X3), cwd and shellEnv for this
// command only (§6.8), output through the chunker, timeoutMs enforced here (R12), and a stop()
// used by cancel (R11), the generation fence (R10) and shutdown (R15).
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import type { Readable } from 'node:stream';
import type { TimerHandle, Timers } from '../../timers.ts';
import { LINGER_AFTER_EXIT_MS } from '../limits.ts';
import { fail, type Outcome } from '../outcome.ts';
import { removeCommandCgroup } from '../proc/cgroup.ts';
import type { GroupJournal } from '../proc/group-journal.ts';
import {
  createPlannedCgroup,
  planCommandTags,
  spawnGroup,
  type SpawnedGroup,
} from '../proc/group.ts';
import { killCommand } from '../proc/tree.ts';
import type { Chunker } from './chunker.ts';
import { bothClosed, drainOutput, type Cut } from './drain.ts';
import type { Flow } from './flow.ts';

export type StopReason = 'cancel' | 'timeout' | 'fence' | 'shutdown';

export type ExecRequest = {
  readonly command: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly shell: string;
  readonly killGraceMs: number;
  readonly clock: Timers;
  readonly chunker: Chunker;
  readonly flow: Flow;
  readonly journal: GroupJournal;
  /** Where this command's cgroup is made (H7b); null: none, the /proc walk alone. */
  readonly cgroupBase: string | null;
};

export type ExecRun = {
  /** The terminal outcome; ordinary when the command finished before any stop(). */
  readonly done: Promise<Outcome>;
  /** Kills the group unless the command already finished. Idempotent. */
  stop(reason: StopReason): void;
  /** True once the process exists (cancel answers `killed`, not `not_started`). */
  readonly started: boolean;
  /** The command's process group id once spawned. */
  readonly pgid: number | null;
};

const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null): number =>
  code ?? 128 + (signal ? (osConstants.signals[signal] ?? 0) : 0);

const preflight = async (req: ExecRequest): Promise<Outcome | null> => {
  try {
    if (!(await stat(req.cwd)).isDirectory()) {
      return fail('not_directory', `working directory ${req.cwd} is not a directory`);
    }
  } catch {
    return fail('not_found', `working directory ${req.cwd} does not exist`);
  }
  try {
    await access(req.shell, constants.X_OK);
  } catch {
    return fail('shell_unavailable', `the shell ${req.shell} is missing or not executable`);
  }
  return null;
};

export const runExec = (req: ExecRequest): ExecRun => {
  let stopReason: StopReason | null = null;
  let finished = false;
  let group: SpawnedGroup | null = null;
  let onStop: (() => void) | null = null;

  const stopped = new Promise<void>((resolve) => (onStop = resolve));

  const pump = (s: Readable, kind: 'stdout' | 'stderr', g: SpawnedGroup) => {
    s.on('data', (buf: Buffer) => {
      req.chunker.push(kind, buf);
      if (req.flow.blocked()) {
        g.stdout.pause();
        g.stderr.pause();
        void req.flow.wait().then(() => {
          g.stdout.resume();
          g.stderr.resume();
        });
      }
    });
  };

  const run = async (): Promise<Outcome> => {
    const bad = await preflight(req);
    if (bad) return bad;
    if (stopReason) return notStarted(stopReason);
    // H7b: the mark and the cgroup are journalled before the cgroup or any process exists.
    const planned = planCommandTags(req.cgroupBase);
    const entry = req.journal.open(planned);
    const tags = createPlannedCgroup(planned);
    const spawned = await spawnGroup(req.shell, req.command, {
      cwd: req.cwd,
      env: req.env,
      tags,
    });
    if ('error' in spawned) {
      if (tags.cgroup) removeCommandCgroup(tags.cgroup);
      entry.close();
      const code = spawned.error.code;
      return code === 'ENOENT'
        ? fail('shell_unavailable', `the shell ${req.shell} could not be started (ENOENT)`)
        : fail('spawn_error', `the command could not be spawned (${code ?? 'unknown error'})`);
    }
    group = spawned;
    entry.started(spawned.pgid, spawned.startTime);
    let allGone = false;
    pump(spawned.stdout, 'stdout', spawned);
    pump(spawned.stderr, 'stderr', spawned);
    const timer = req.clock.setTimeout(() => ext.stop('timeout'), req.timeoutMs);
    try {
      const pipesClosed = bothClosed(spawned);
      const exit = await Promise.race([spawned.exited, stopped.then(() => null)]);
      if (exit) {
        // The shell is done; its pipes may be held by background children for a moment.
        let linger: TimerHandle | undefined;
        const lingerOver = new Promise<'linger'>((r) => {
          linger = req.clock.setTimeout(() => r('linger'), LINGER_AFTER_EXIT_MS);
        });
        const first = await Promise.race([pipesClosed, lingerOver, stopped.then(() => 'stop')]);
        if (linger) req.clock.clearTimeout(linger);
        if (first !== 'stop') {
          finished = true;
          // Nothing outlives its instruction (§8): kill what the shell left behind, also what
          // left its group (H7b).
          allGone = await killCommand(spawned.ref, req.killGraceMs, req.clock);
          const cut = await drainOutput(spawned, req.flow, req.clock);
          const code = exitCodeOf(exit.code, exit.signal);
          req.chunker.exit(code);
          const t = req.chunker.truncated;
          const stdout = t.stdout || cut.stdout;
          const stderr = t.stderr || cut.stderr;
          return stdout || stderr
            ? { ok: true, kind: 'exec', exitCode: code, truncated: { stdout, stderr } }
            : { ok: true, kind: 'exec', exitCode: code };
        }
      }
      const gone = await killCommand(spawned.ref, req.killGraceMs, req.clock);
      allGone = gone;
      const cut = gone
        ? await drainOutput(spawned, req.flow, req.clock)
        : { stdout: !spawned.stdout.closed, stderr: !spawned.stderr.closed };
      spawned.stdout.destroy();
      spawned.stderr.destroy();
      req.chunker.flush();
      return stoppedOutcome(stopReason ?? 'cancel', gone, cut);
    } finally {
      req.clock.clearTimeout(timer);
      // Something still alive stays in the journal: the next start kills what is left.
      const removed = tags.cgroup === null || removeCommandCgroup(tags.cgroup);
      if (removed && allGone) entry.close();
    }
  };

  const ext: ExecRun = {
    done: run(),
    stop(reason) {
      if (stopReason || finished) return;
      stopReason = reason;
      onStop?.();
    },
    get started() {
      return group !== null;
    },
    get pgid() {
      return group?.pgid ?? null;
    },
  };
  return ext;
};

const notStarted = (reason: StopReason): Outcome =>
  reason === 'timeout'
    ? fail('timeout', 'the time budget ran out before the command started')
    : reason === 'shutdown'
      ? fail('target_unavailable', 'the executor is shutting down; the command was not started')
      : { ok: true, kind: 'cancelled', state: 'not_started' };

const cutText = (cut: Cut) =>
  [cut.stdout ? 'stdout' : '', cut.stderr ? 'stderr' : ''].filter(Boolean).join(' and ');

const stoppedOutcome = (reason: StopReason, gone: boolean, cut: Cut): Outcome => {
  if (!gone) {
    return fail(
      'outcome_unknown',
      'the command was signalled (TERM, then KILL) but some of its processes are still alive',
    );
  }
  if (cut.stdout || cut.stderr) {
    // X3: timeout only when the work is known dead; a holder nobody could find may be its own.
    return fail(
      'outcome_unknown',
      `the command's processes were killed, but its ${cutText(cut)} stayed open, held by a process outside its group the executor could not identify; output cut`,
    );
  }
  switch (reason) {
    case 'timeout':
      return fail('timeout', 'the command ran past timeoutMs; its whole process group was killed');
    case 'shutdown':
      return fail(
        'aborted',
        'the executor shut down; the command was killed (side effects may exist)',
      );
    default:
      return { ok: true, kind: 'cancelled', state: 'killed' };
  }
};
