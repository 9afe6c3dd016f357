// How a serving executor ends. stop() (R15): goodbye with the grace, running tasks may finish and
// their results be acked; past the grace they are stopped, and SHUTDOWN_ACK_WAIT_MS later the
// executor exits whatever is left. terminal(): revoked, superseded or an unsupported version —
// everything running is killed first (and on revoke the key deleted).
import type { TimerHandle, Timers } from '../timers.ts';
import type { DeviceGoodbyeReason } from '../wire/index.ts';
import { deleteKeyMaterial } from './keystore.ts';
import * as L from './limits.ts';
import type { Logger } from './log.ts';
import type { Outbox } from './outbox.ts';
import type { ServeState } from './serve-state.ts';
import type { ExecutorEvent, ExecutorExit, ExecutorExitReason, ExecutorOptions } from './types.ts';

export const makeShutdown = (deps: {
  state: ServeState;
  outbox: Outbox;
  opts: ExecutorOptions;
  clock: Timers;
  log: Logger;
  emit: (e: ExecutorEvent) => void;
  releaseLock: () => void;
}) => {
  const { state, outbox, opts, clock, log, emit } = deps;
  let resolveDone!: (e: ExecutorExit) => void;
  const done = new Promise<ExecutorExit>((r) => (resolveDone = r));
  let shutdownTimer: TimerHandle | null = null;
  let graceOver = false;

  const exit = (e: ExecutorExit) => {
    if (state.exited) return;
    state.exited = true;
    state.conn?.close('executor exit');
    deps.releaseLock();
    log(e.reason === 'stopped' ? 'info' : 'error', 'executor.exit', { reason: e.reason });
    resolveDone(e);
  };

  const killAll = async () => {
    const all = [...state.tasks.values()];
    for (const t of all) {
      state.writtenOff.add(t.id);
      t.stop('fence');
    }
    await Promise.all(all.map((t) => t.done.catch(() => undefined)));
  };

  const terminal = async (reason: Exclude<ExecutorExitReason, 'stopped'>, message: string) => {
    await killAll();
    if (reason === 'revoked') deleteKeyMaterial(opts.keyDir);
    exit({ reason, message });
  };

  const finish = () => {
    if (shutdownTimer) clock.clearTimeout(shutdownTimer);
    exit({ reason: 'stopped', message: `stopped (${state.stopping ?? 'shutdown'})` });
  };

  /** Exits once nothing runs and every result is acked (or nothing can be delivered). */
  const progress = () => {
    if (!state.stopping || state.exited) return;
    if (state.tasks.size > 0) return;
    if (outbox.heldResults === 0 || !state.conn?.active) finish();
  };

  const stop = (reason: DeviceGoodbyeReason = 'shutdown'): Promise<ExecutorExit> => {
    if (state.stopping || state.exited) return done;
    state.stopping = reason;
    emit({ type: 'stopping', reason });
    log('info', 'executor.stopping', { reason, running: state.tasks.size });
    const graceMs = opts.shutdownGraceMs ?? L.DEFAULT_SHUTDOWN_GRACE_MS;
    state.conn?.goodbye(reason, graceMs + L.SHUTDOWN_ACK_WAIT_MS);
    state.wake?.();
    shutdownTimer = clock.setTimeout(() => {
      graceOver = true;
      for (const t of state.tasks.values()) t.stop('shutdown');
      shutdownTimer = clock.setTimeout(finish, L.SHUTDOWN_ACK_WAIT_MS);
    }, graceMs);
    progress();
    return done;
  };

  /** Disconnected while stopping: nothing can be delivered any more; fail the rest locally. */
  const finishOffline = async () => {
    if (!graceOver) for (const t of state.tasks.values()) t.stop('shutdown');
    await Promise.all([...state.tasks.values()].map((t) => t.done.catch(() => undefined)));
    finish();
  };

  return { done, stop, progress, terminal, finishOffline };
};
export type Shutdown = ReturnType<typeof makeShutdown>;
