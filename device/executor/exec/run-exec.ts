// exec / execStream: the user's shell in its own process group (X3), cwd and shellEnv for this
// command only (§6.8), output through the chunker, timeoutMs enforced here (R12), and a stop()
// used by cancel (R11), the generation fence (R10) and shutdown (R15).
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { constants as osConstants } from 'node:os';
import type { Readable } from 'node:stream';
import type { Clock, TimerHandle } from '../clock.ts';
import { LINGER_AFTER_EXIT_MS } from '../limits.ts';
import { fail, type Outcome } from '../outcome.ts';
import type { GroupJournal } from '../proc/group-journal.ts';
import { killGroup, spawnGroup, type SpawnedGroup } from '../proc/group.ts';
import type { Chunker } from './chunker.ts';
import type { Flow } from './flow.ts';

export type StopReason = 'cancel' | 'timeout' | 'fence' | 'shutdown';

export type ExecRequest = {
  readonly command: string;
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly shell: string;
  readonly killGraceMs: number;
  readonly clock: Clock;
  readonly chunker: Chunker;
  readonly flow: Flow;
  readonly journal: GroupJournal;
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

const closed = (s: Readable): Promise<void> =>
  s.closed || s.destroyed ? Promise.resolve() : new Promise((r) => s.once('close', () => r()));

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
    const spawned = await spawnGroup(req.shell, req.command, { cwd: req.cwd, env: req.env });
    if ('error' in spawned) {
      const code = spawned.error.code;
      return code === 'ENOENT'
        ? fail('shell_unavailable', `the shell ${req.shell} could not be started (ENOENT)`)
        : fail('spawn_error', `the command could not be spawned (${code ?? 'unknown error'})`);
    }
    group = spawned;
    req.journal.record(spawned.pgid, spawned.startTime);
    pump(spawned.stdout, 'stdout', spawned);
    pump(spawned.stderr, 'stderr', spawned);
    const timer: TimerHandle = req.clock.after(req.timeoutMs, () => ext.stop('timeout'));
    try {
      const pipesClosed = Promise.all([closed(spawned.stdout), closed(spawned.stderr)]);
      const exit = await Promise.race([spawned.exited, stopped.then(() => null)]);
      if (exit) {
        // The shell is done; its pipes may be held by background children for a moment.
        let linger: TimerHandle | undefined;
        const lingerOver = new Promise<'linger'>((r) => {
          linger = req.clock.after(LINGER_AFTER_EXIT_MS, () => r('linger'));
        });
        const first = await Promise.race([pipesClosed, lingerOver, stopped.then(() => 'stop')]);
        linger?.cancel();
        if (first !== 'stop') {
          finished = true;
          // Nothing outlives its instruction (§8): kill what the shell left behind.
          await killGroup(spawned.pgid, req.killGraceMs, req.clock);
          await pipesClosed;
          req.chunker.exit(exitCodeOf(exit.code, exit.signal));
          const t = req.chunker.truncated;
          return t.stdout || t.stderr
            ? {
                ok: true,
                kind: 'exec',
                exitCode: exitCodeOf(exit.code, exit.signal),
                truncated: { stdout: t.stdout, stderr: t.stderr },
              }
            : { ok: true, kind: 'exec', exitCode: exitCodeOf(exit.code, exit.signal) };
        }
      }
      const gone = await killGroup(spawned.pgid, req.killGraceMs, req.clock);
      if (gone) await pipesClosed;
      else {
        spawned.stdout.destroy();
        spawned.stderr.destroy();
      }
      req.chunker.flush();
      return stoppedOutcome(stopReason ?? 'cancel', gone);
    } finally {
      timer.cancel();
      if (group) req.journal.forget(group.pgid, group.startTime);
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

const stoppedOutcome = (reason: StopReason, gone: boolean): Outcome => {
  if (!gone) {
    return fail(
      'outcome_unknown',
      'the command was signalled (TERM, then KILL) but part of its process group is still alive',
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
