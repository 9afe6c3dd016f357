// The executor once started: the task table, the outbox, the per-epoch seen-set (X6), the fence,
// frame handling, shutdown (R15), and the reconnect loop — one connection at a time, until
// something terminal happens (revoked, superseded, an unsupported protocol version) or stop().
import type { KeyObject } from 'node:crypto';
import {
  DEVICE_PROTOCOL_VERSION,
  dataChunkFrameWriter,
  encodeExitChunkFrame,
  mintEpoch,
  type DeviceGoodbyeReason,
  type DeviceInstructionFrame,
  type HelloAckFrame,
} from '../wire/index.ts';
import { reconnectDelayMs } from './backoff.ts';
import type { Clock } from '../clock.ts';
import { openConnection, type Connection, type SteadyFrame } from './connection.ts';
import type { OutChunk } from './exec/chunker.ts';
import { makeFlowControl } from './exec/flow.ts';
import { makeContainment } from './fs/contain.ts';
import type { TempJournal } from './fs/temp-journal.ts';
import { deleteKeyMaterial } from './keystore.ts';
import * as L from './limits.ts';
import type { Logger } from './log.ts';
import { fail, type Outcome } from './outcome.ts';
import { makeOutbox, type HeldResult } from './outbox.ts';
import type { GroupJournal } from './proc/group-journal.ts';
import { startTask, SUPPORTED_KINDS, type Task } from './tasks.ts';
import type {
  Executor,
  ExecutorEvent,
  ExecutorExit,
  ExecutorExitReason,
  ExecutorOptions,
} from './types.ts';

export const EXECUTOR_VERSION = '0.1.0';

/**
 * §2.4 stage 0: a frame over 1 MiB costs the connection, and a result is re-sent on every
 * reconnect — so an answer too big for one frame (a huge listDir) would cut the connection again
 * and again. It is replaced by a specific failure instead.
 */
const fitsInFrame = (o: Outcome): Outcome => {
  const bytes = Buffer.byteLength(JSON.stringify(o));
  return bytes <= L.MAX_RESULT_OUTCOME_BYTES
    ? o
    : fail(
        'invalid',
        `the answer is ${bytes} bytes, over what one frame can carry (${L.MAX_RESULT_OUTCOME_BYTES}); ask for less (e.g. a narrower listDir)`,
      );
};

/** X2: the executor's own settings never reach a child's environment. */
const childEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('DSH_DEVICE_')));

export type RunParams = {
  opts: ExecutorOptions;
  clock: Clock;
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
  const flow = makeFlowControl(opts.maxUnackedChunkBytes ?? L.DEFAULT_MAX_UNACKED_CHUNK_BYTES);
  const outbox = makeOutbox({
    flow,
    maxHeldResults: opts.maxHeldResults ?? L.DEFAULT_MAX_HELD_RESULTS,
    maxResultSends: opts.maxResultSends ?? L.DEFAULT_MAX_RESULT_SENDS,
    log,
  });
  const tasks = new Map<string, Task>();
  /** X6: every instruction id of this epoch; a repeat is never run. */
  const seen = new Set<string>();
  const cancelled = new Set<string>();
  /** Tasks the fence killed: nothing more is ever sent for them (§1.5). */
  const writtenOff = new Set<string>();
  let deviceSeq = 0;
  let conn: Connection | null = null;
  let stopping: DeviceGoodbyeReason | null = null;
  let wake: (() => void) | null = null;
  let connectedOnce = false;

  const ctx = {
    containment: makeContainment([p.workspaceRoot, p.tempRoot], opts.keyDir),
    workspaceRoot: p.workspaceRoot,
    tempRoot: p.tempRoot,
    shell: opts.shell ?? process.env.SHELL ?? '/bin/sh',
    baseEnv: childEnv(opts.env ?? process.env),
    limits: {
      maxOutputBytesPerStream:
        opts.maxOutputBytesPerStream ?? L.DEFAULT_MAX_OUTPUT_BYTES_PER_STREAM,
      maxReadBytes: opts.maxReadBytes ?? L.DEFAULT_MAX_READ_BYTES,
      maxWriteBytes: opts.maxWriteBytes ?? L.DEFAULT_MAX_WRITE_BYTES,
      minFreeBytes: opts.minFreeBytes ?? L.MIN_FREE_BYTES_AFTER_WRITE,
      killGraceMs: opts.killGraceMs ?? L.DEFAULT_KILL_GRACE_MS,
    },
    clock,
    flow,
    groups: p.groups,
    cgroupBase: p.cgroupBase,
    temps: p.temps,
    emitChunk(id: string, chunk: OutChunk) {
      if (writtenOff.has(id)) return;
      outbox.addChunk(id, chunk);
      if (conn?.active) sendChunk(conn, id, chunk);
    },
  };

  const sendChunk = (c: Connection, instructionId: string, chunk: OutChunk) => {
    const gen = c.gen as string;
    if (chunk.kind === 'exit') {
      c.send(
        encodeExitChunkFrame({
          gen,
          instructionId,
          streamSeq: chunk.seq,
          exitCode: chunk.exitCode,
        }),
      );
      return;
    }
    const w = dataChunkFrameWriter({
      gen,
      instructionId,
      streamSeq: chunk.seq,
      kind: chunk.kind,
      dataB64: chunk.b64,
    });
    c.sendText(w.length, w.write);
  };

  const resultText = (gen: string, instructionId: string, r: HeldResult) =>
    JSON.stringify({ t: 'result', gen, instructionId, deviceSeq: r.deviceSeq, outcome: r.outcome });

  const sendResultNow = (id: string) => {
    if (!conn?.active) return false;
    const r = outbox.takeResultForSend(id);
    return r !== null && conn.send(resultText(conn.gen as string, id, r));
  };

  const settle = (id: string, answer: Outcome) => {
    tasks.delete(id);
    if (writtenOff.has(id)) return;
    const outcome = fitsInFrame(answer);
    // R6: one deviceSeq per result, reused for every retransmission.
    outbox.setResult(id, deviceSeq++, outcome);
    const sent = sendResultNow(id);
    log('info', 'instruction.settled', {
      instructionId: id,
      ok: outcome.ok,
      code: outcome.ok ? outcome.kind : outcome.errorCode,
    });
    emit({ type: 'settled', instructionId: id, outcome, sent });
    if (stopping) shutdownProgress();
  };

  const accept = (frame: DeviceInstructionFrame) => {
    const id = frame.instructionId;
    if (seen.has(id)) {
      log('warn', 'instruction.duplicate_ignored', { instructionId: id });
      emit({ type: 'duplicate', instructionId: id });
      return;
    }
    seen.add(id);
    log('info', 'instruction.received', { instructionId: id, kind: frame.kind });
    emit({ type: 'instruction', instructionId: id, kind: frame.kind });
    if (stopping) {
      // §1.6: arriving after goodbye is normal; it is failed explicitly, never dropped.
      settle(
        id,
        fail(
          'target_unavailable',
          'the executor is shutting down; the instruction was not started',
        ),
      );
      return;
    }
    const task = startTask(frame, ctx);
    tasks.set(id, task);
    void task.done.then(
      (o) => settle(id, o),
      () => settle(id, fail('unknown', `${frame.kind} failed unexpectedly inside the executor`)),
    );
  };

  const handler = {
    async fence(ack: HelloAckFrame) {
      // §1.5 / R2 / R3 / R10: pendingInstructions is the only authority.
      const listed = new Set(ack.pendingInstructions);
      const victims = [...tasks.values()].filter((t) => !listed.has(t.id));
      for (const v of victims) {
        writtenOff.add(v.id);
        v.stop('fence');
      }
      await Promise.all(victims.map((v) => v.done.catch(() => undefined)));
      for (const id of outbox.ids()) {
        if (!listed.has(id)) {
          writtenOff.add(id);
          outbox.discard(id, 'not in pendingInstructions');
        }
      }
      watermarks = ack.chunkWatermarks;
      kept = [...new Set([...tasks.keys(), ...outbox.ids()])].filter((id) => listed.has(id));
      killed = victims.map((v) => v.id);
    },
    activated(c: Connection) {
      connectedOnce = true;
      attempt = 0;
      const gen = c.gen as string;
      // R2/R5/R7: re-send what the server still lists: chunks above its watermark, then results.
      for (const id of outbox.ids()) {
        const wm = watermarks[id] ?? -1;
        for (const chunk of outbox.chunksAbove(id, wm)) sendChunk(c, id, chunk);
        const r = outbox.takeResultForSend(id);
        if (r) c.send(resultText(gen, id, r));
      }
      emit({ type: 'active', gen, kept, killed });
    },
    frame(f: SteadyFrame) {
      switch (f.t) {
        case 'instruction':
          return accept(f);
        case 'payload':
          return tasks.get(f.instructionId)?.payload(f);
        case 'cancel': {
          const id = f.instructionId;
          const t = tasks.get(id);
          if (t) {
            if (!cancelled.has(id)) {
              cancelled.add(id);
              log('info', 'instruction.cancel', { instructionId: id });
              t.stop('cancel');
            }
          } else if (!seen.has(id)) {
            // Never received: nothing ran, and nothing ever will (it joins the seen-set).
            seen.add(id);
            settle(id, { ok: true, kind: 'cancelled', state: 'not_started' });
          }
          return;
        }
        case 'resultAck':
          outbox.resultAck(f.instructionId);
          if (stopping) shutdownProgress();
          return;
        case 'chunkAck':
          return outbox.chunkAck(f.instructionId, f.upToStreamSeq);
      }
    },
    badInstruction(id: string, gen: string, kindKnown: boolean, message: string, c: Connection) {
      if (gen !== c.gen || seen.has(id)) return;
      seen.add(id);
      settle(id, fail(kindKnown ? 'invalid' : 'not_supported', message));
    },
    inflight: () => [...tasks.keys()].filter((id) => !writtenOff.has(id)),
  };
  let watermarks: Record<string, number> = {};
  let kept: string[] = [];
  let killed: string[] = [];
  let attempt = 0;

  let resolveDone!: (e: ExecutorExit) => void;
  const done = new Promise<ExecutorExit>((r) => (resolveDone = r));
  let exited = false;

  const killAll = async () => {
    const all = [...tasks.values()];
    for (const t of all) {
      writtenOff.add(t.id);
      t.stop('fence');
    }
    await Promise.all(all.map((t) => t.done.catch(() => undefined)));
  };

  const exit = (e: ExecutorExit) => {
    if (exited) return;
    exited = true;
    conn?.close('executor exit');
    p.releaseLock();
    log(e.reason === 'stopped' ? 'info' : 'error', 'executor.exit', { reason: e.reason });
    resolveDone(e);
  };

  const terminal = async (reason: Exclude<ExecutorExitReason, 'stopped'>, message: string) => {
    await killAll();
    if (reason === 'revoked') deleteKeyMaterial(opts.keyDir);
    exit({ reason, message });
  };

  // ---- shutdown (R15) ----
  let shutdownTimer: { cancel(): void } | null = null;
  let graceOver = false;
  const shutdownProgress = () => {
    if (!stopping || exited) return;
    if (tasks.size > 0) return;
    if (outbox.heldResults === 0 || !conn?.active) finishShutdown();
  };
  const finishShutdown = () => {
    shutdownTimer?.cancel();
    exit({ reason: 'stopped', message: `stopped (${stopping ?? 'shutdown'})` });
  };
  const stop = (reason: DeviceGoodbyeReason = 'shutdown'): Promise<ExecutorExit> => {
    if (stopping || exited) return done;
    stopping = reason;
    emit({ type: 'stopping', reason });
    log('info', 'executor.stopping', { reason, running: tasks.size });
    const graceMs = opts.shutdownGraceMs ?? L.DEFAULT_SHUTDOWN_GRACE_MS;
    conn?.goodbye(reason, graceMs + L.SHUTDOWN_ACK_WAIT_MS);
    wake?.();
    shutdownTimer = clock.after(graceMs, () => {
      graceOver = true;
      for (const t of tasks.values()) t.stop('shutdown');
      shutdownTimer = clock.after(L.SHUTDOWN_ACK_WAIT_MS, finishShutdown);
    });
    shutdownProgress();
    return done;
  };

  const loop = async () => {
    while (!exited) {
      if (stopping) {
        // Disconnected while stopping: nothing can be delivered any more; fail the rest locally.
        if (!graceOver) for (const t of tasks.values()) t.stop('shutdown');
        await Promise.all([...tasks.values()].map((t) => t.done.catch(() => undefined)));
        return finishShutdown();
      }
      emit({ type: 'connecting', attempt });
      conn = openConnection({
        url: p.wsUrl,
        hello: {
          deviceId,
          epoch,
          key: p.key,
          workspaceRoot: p.workspaceRoot,
          supports: SUPPORTED_KINDS,
          executorVersion: EXECUTOR_VERSION,
          unackedResults: connectedOnce ? outbox.heldResults : null,
        },
        handler,
        clock,
        log,
      });
      const end = await conn.done;
      conn = null;
      emit({ type: 'disconnected', end });
      log('info', 'connection.end', {
        kind: end.kind,
        detail: end.kind === 'closed' ? end.why : end.kind === 'bye' ? end.reason : end.code,
      });
      if (end.kind === 'reject' && end.code === 'revoked') {
        return terminal('revoked', REVOKED_MESSAGE);
      }
      if (end.kind === 'reject' && end.code === 'protocol_version_unsupported') {
        return terminal(
          'protocol_version_unsupported',
          `the server does not accept protocol version ${DEVICE_PROTOCOL_VERSION} (minimum ${end.minProtocolVersion ?? 'unknown'}); upgrade the executor`,
        );
      }
      if (end.kind === 'bye' && end.reason === 'revoked')
        return terminal('revoked', REVOKED_MESSAGE);
      if (end.kind === 'bye' && end.reason === 'superseded') {
        return terminal('superseded', SUPERSEDED_MESSAGE);
      }
      if (stopping || exited) continue;
      const waitMs = reconnectDelayMs(
        attempt,
        p.random,
        opts.reconnectMinMs ?? L.RECONNECT_MIN_MS,
        opts.reconnectMaxMs ?? L.RECONNECT_MAX_MS,
      );
      attempt += 1;
      await new Promise<void>((resolve) => {
        const t = clock.after(waitMs, resolve);
        wake = () => {
          t.cancel();
          resolve();
        };
      });
      wake = null;
    }
  };
  void loop();

  return {
    deviceId,
    epoch,
    done,
    stop,
    status: () => ({
      connected: conn?.active ?? false,
      gen: conn?.gen ?? null,
      running: handler.inflight(),
      heldResults: outbox.heldResults,
    }),
  };
};

export const REVOKED_MESSAGE =
  'This device was revoked by the server. Its key has been deleted; enroll again with a new token (it gets a new deviceId).';
export const SUPERSEDED_MESSAGE =
  "Another executor took over this device's connection. Only one executor may serve a device: stop the other one (check `npm run device -- status` on each machine).";
