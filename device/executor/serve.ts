// The executor once started, wired from its parts: the shared state (serve-state.ts), what tasks
// may use (task-context.ts), the outbox, the frames taken in (instruction-intake.ts), the fence
// (fence.ts), how it ends (shutdown.ts) and the connections one after another (reconnect-loop.ts).
import type { KeyObject } from 'node:crypto';
import type { Timers } from '../timers.ts';
import { mintEpoch } from '../wire/index.ts';
import type { ConnectionHandler } from './connection.ts';
import type { OutChunk } from './exec/chunker.ts';
import { makeFlowControl } from './exec/flow.ts';
import { makeFence } from './fence.ts';
import type { TempJournal } from './fs/temp-journal.ts';
import { makeInstructionIntake } from './instruction-intake.ts';
import * as L from './limits.ts';
import type { Logger } from './log.ts';
import { sendChunk } from './outbound.ts';
import { makeOutbox } from './outbox.ts';
import type { GroupJournal } from './proc/group-journal.ts';
import { makeReconnectLoop } from './reconnect-loop.ts';
import { makeServeState } from './serve-state.ts';
import { makeShutdown } from './shutdown.ts';
import { makeTaskContext } from './task-context.ts';
import type { Executor, ExecutorEvent, ExecutorOptions } from './types.ts';

export type RunParams = {
  opts: ExecutorOptions;
  clock: Timers;
  log: Logger;
  random: () => number;
  emit: (e: ExecutorEvent) => void;
  deviceId: string;
  key: KeyObject;
  workspaceRoot: string;
  wsUrl: URL;
  tempRoot: string;
  temps: TempJournal;
  groups: GroupJournal;
  /** H7b: where each command gets its own cgroup; null: the /proc walk alone. */
  cgroupBase: string | null;
  releaseLock: () => void;
};

export const serve = (p: RunParams): Executor => {
  const { opts, clock, log, emit, deviceId } = p;
  const epoch = mintEpoch(clock.now());
  const state = makeServeState();
  const flow = makeFlowControl(opts.maxUnackedChunkBytes ?? L.DEFAULT_MAX_UNACKED_CHUNK_BYTES);
  const outbox = makeOutbox({
    flow,
    maxHeldResults: opts.maxHeldResults ?? L.DEFAULT_MAX_HELD_RESULTS,
    maxResultSends: opts.maxResultSends ?? L.DEFAULT_MAX_RESULT_SENDS,
    log,
  });
  const ctx = makeTaskContext({
    ...p,
    flow,
    emitChunk(id: string, chunk: OutChunk) {
      if (state.writtenOff.has(id)) return;
      outbox.addChunk(id, chunk);
      if (state.conn?.active) sendChunk(state.conn, id, chunk);
    },
  });
  const shutdown = makeShutdown({
    state,
    outbox,
    opts,
    clock,
    log,
    emit,
    releaseLock: p.releaseLock,
  });
  const intake = makeInstructionIntake({
    state,
    ctx,
    outbox,
    log,
    emit,
    onShutdownProgress: shutdown.progress,
  });
  const fence = makeFence({ state, outbox, emit });
  const handler: ConnectionHandler = {
    fence: fence.fence,
    activated(c) {
      loop.connected();
      fence.resend(c);
    },
    frame: intake.frame,
    badInstruction: intake.badInstruction,
    inflight: intake.inflight,
  };
  const loop = makeReconnectLoop({
    state,
    shutdown,
    outbox,
    opts,
    clock,
    log,
    random: p.random,
    emit,
    hello: { deviceId, epoch, key: p.key, workspaceRoot: p.workspaceRoot, wsUrl: p.wsUrl },
    handler,
  });
  void loop.run();

  return {
    deviceId,
    epoch,
    done: shutdown.done,
    stop: shutdown.stop,
    status: () => ({
      connected: state.conn?.active ?? false,
      gen: state.conn?.gen ?? null,
      running: intake.inflight(),
      heldResults: outbox.heldResults,
    }),
  };
};
