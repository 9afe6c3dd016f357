import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  decodeCanonicalBase64,
  DEVICE_INSTRUCTION_KINDS,
  EXEC_INSTRUCTION_KINDS,
  isMember,
  mintInstructionId,
  OUTCOME_KIND_FOR_INSTRUCTION,
  PAYLOAD_INSTRUCTION_KINDS,
  parseInstructionArgs,
  READ_INSTRUCTION_KINDS,
  STAT_FIELD_FOR_INSTRUCTION,
  type ChunkFrame,
  type DeviceInstructionKind,
  type DeviceInstructionState,
  type DeviceOutcome,
  type DeviceOutcomeErrorCode,
  type DeviceServerFrame,
  type ResultFrame,
} from '../wire/index.ts';
import { makeChunkStream, type ChunkStream, type StreamItem } from './chunk-stream.ts';
import { makeSettledMemo } from './memo.ts';
import type { LaneConfig } from './options.ts';
import { makeOutputQueue, type OutputQueue } from './output-queue.ts';
import type { Registry } from './registry.ts';

export type DispatchRequest = {
  kind: DeviceInstructionKind;
  args?: Record<string, unknown>;
  /** The bytes of a write-family instruction; the lane sets args.contentLen and args.sha256. */
  content?: Uint8Array;
  cwd?: string;
  shellEnv?: Record<string, string>;
  timeoutMs?: number;
  rootSessionId?: string;
  /**
   * §3.2: the device's `supports` when the task's environment was built. If the device has since
   * gained a protective write face, an ordinary writeFile is refused rather than written
   * non-atomically (a silent-downgrade hazard).
   */
  environmentSupports?: readonly string[];
};

const PROTECTIVE_WRITE_FACES = ['writeFileExclusive', 'writeFileGuarded'] as const;
export type DispatchOutput = AsyncIterable<StreamItem> & {
  onChunk(listener: (item: StreamItem) => void): () => void;
};
export type DispatchHandle = {
  instructionId: string;
  output: DispatchOutput;
  outcome: Promise<DeviceOutcome>;
  state(): DeviceInstructionState;
};

/** What the dispatcher needs from a live socket (socket-session.ts provides it). */
export type LaneConn = {
  readonly id: number;
  readonly deviceId: string;
  readonly gen: string;
  readonly epoch: string;
  phase: 'fencing' | 'active' | 'closed';
  goodbye: boolean;
  issuedSeq: number;
  lastFrameAt: number;
  send(frame: DeviceServerFrame): void;
  /** Owes a chunkAck; acks owed in one burst are sent as one, before any other frame. */
  ackChunks(instructionId: string, upToStreamSeq: number): void;
  close(code: number, reason: string): void;
};

type Timer = ReturnType<typeof setTimeout>;
type Inst = {
  id: string;
  deviceId: string;
  kind: DeviceInstructionKind;
  args: Record<string, unknown>;
  content: Buffer | undefined;
  sha256: string | undefined;
  cwd: string | undefined;
  shellEnv: Record<string, string> | undefined;
  timeoutMs: number;
  rootSessionId: string;
  state: DeviceInstructionState;
  stream: ChunkStream;
  output: OutputQueue;
  resolve: (o: DeviceOutcome) => void;
  ceiling?: Timer;
  gap?: Timer;
  cancelGrace?: Timer;
  cancelRequested: boolean;
  cancelSentGen?: string;
};
type DeviceRt = {
  deviceId: string;
  conn: LaneConn | undefined;
  epoch: string | undefined;
  supports: Set<string>;
  inflight: Map<string, Inst>;
  queue: Inst[];
  graceTimer?: Timer;
  online: boolean;
};

export type Audit = (event: string, deviceId: string | null, detail: object) => void;

const fail = (errorCode: DeviceOutcomeErrorCode, message: string): DeviceOutcome => ({
  ok: false,
  errorCode,
  message,
});
const unref = (t: Timer) => {
  t.unref?.();
  return t;
};

export const makeDispatcher = (deps: { config: LaneConfig; registry: Registry; audit: Audit }) => {
  const { config, registry, audit } = deps;
  const table = new Map<string, Inst>();
  const memo = makeSettledMemo(config.settledMemoEntries);
  const devices = new Map<string, DeviceRt>();
  let draining = false;

  const rt = (deviceId: string): DeviceRt => {
    let r = devices.get(deviceId);
    if (r === undefined) {
      r = {
        deviceId,
        conn: undefined,
        epoch: undefined,
        supports: new Set(),
        inflight: new Map(),
        queue: [],
        online: false,
      };
      devices.set(deviceId, r);
    }
    return r;
  };
  /** Tells the host when a device becomes dispatchable or stops being so (edges only). */
  const setOnline = (r: DeviceRt, online: boolean) => {
    if (r.online === online) return;
    r.online = online;
    config.onDeviceState?.(r.deviceId, online);
  };
  const activeConn = (r: DeviceRt): LaneConn | undefined =>
    r.conn !== undefined && r.conn.phase === 'active' ? r.conn : undefined;

  const clearTimers = (i: Inst) => {
    for (const t of [i.ceiling, i.gap, i.cancelGrace]) if (t !== undefined) clearTimeout(t);
    i.ceiling = i.gap = i.cancelGrace = undefined;
  };

  /** Every path to a terminal goes through here: exactly one outcome per instruction. */
  const settle = (i: Inst, outcome: DeviceOutcome, state: DeviceInstructionState = 'terminal') => {
    if (!table.has(i.id)) return;
    clearTimers(i);
    table.delete(i.id);
    const r = rt(i.deviceId);
    r.inflight.delete(i.id);
    const q = r.queue.indexOf(i);
    if (q >= 0) r.queue.splice(q, 1);
    i.state = state;
    memo.add(i.id, i.deviceId);
    i.output.end();
    i.resolve(outcome);
    if (!outcome.ok && outcome.errorCode === 'outcome_unknown') {
      audit('instruction_outcome_unknown', i.deviceId, {
        instructionId: i.id,
        message: outcome.message,
      });
    }
    pump(r);
  };
  const settleUnknown = (i: Inst, message: string) => settle(i, fail('outcome_unknown', message));

  const neverStarted = (
    deviceId: string,
    errorCode: DeviceOutcomeErrorCode,
    message: string,
  ): DispatchHandle => {
    const output = makeOutputQueue();
    output.end();
    return {
      instructionId: mintInstructionId(),
      output,
      outcome: Promise.resolve(fail(errorCode, message)),
      state: () => 'terminal_never_started',
    };
  };

  const pump = (r: DeviceRt) => {
    const conn = activeConn(r);
    if (conn === undefined || conn.goodbye || draining) return;
    while (r.inflight.size < config.maxInflight && r.queue.length > 0) {
      const i = r.queue.shift() as Inst;
      if (!r.supports.has(i.kind)) {
        settle(
          i,
          fail('not_supported', `the device does not declare ${i.kind}`),
          'terminal_never_started',
        );
        continue;
      }
      commit(r, conn, i);
    }
  };

  /** §5.0: the one-way commit is crossed before the first byte reaches the socket (R1). */
  const commit = (r: DeviceRt, conn: LaneConn, i: Inst) => {
    i.state = 'dispatch_committed';
    r.inflight.set(i.id, i);
    i.ceiling = unref(
      setTimeout(
        () =>
          settleUnknown(
            i,
            `no terminal result within timeoutMs + ${config.executionGraceMs} ms (execution ceiling)`,
          ),
        i.timeoutMs + config.executionGraceMs,
      ),
    );
    conn.send({
      t: 'instruction',
      gen: conn.gen,
      instructionId: i.id,
      rootSessionId: i.rootSessionId,
      issuedSeq: conn.issuedSeq++,
      kind: i.kind,
      args: i.args,
      ...(i.cwd === undefined ? {} : { cwd: i.cwd }),
      ...(i.shellEnv === undefined ? {} : { shellEnv: i.shellEnv }),
      timeoutMs: i.timeoutMs,
    });
    if (i.content !== undefined && i.sha256 !== undefined) {
      const base = { gen: conn.gen, instructionId: i.id };
      const totalLen = i.content.length;
      conn.send({ t: 'payload', ...base, part: 'begin', totalLen, sha256: i.sha256 });
      for (let offset = 0; offset < totalLen; offset += config.payloadPartBytes) {
        const part = i.content.subarray(offset, offset + config.payloadPartBytes);
        conn.send({
          t: 'payload',
          ...base,
          part: 'chunk',
          offset,
          dataB64: part.toString('base64'),
        });
      }
      conn.send({ t: 'payload', ...base, part: 'commit', totalLen, sha256: i.sha256 });
      i.content = undefined; // the one copy now lives on the wire; nothing re-sends it (R1)
    }
  };

  const dispatch = (deviceId: string, req: DispatchRequest): DispatchHandle => {
    if (!isMember(DEVICE_INSTRUCTION_KINDS, req.kind)) {
      return neverStarted(deviceId, 'invalid', `unknown instruction kind ${String(req.kind)}`);
    }
    const kind = req.kind;
    const args: Record<string, unknown> = { ...(req.args ?? {}) };
    let content: Buffer | undefined;
    let sha256: string | undefined;
    if (PAYLOAD_INSTRUCTION_KINDS.has(kind)) {
      content = Buffer.from(req.content ?? new Uint8Array(0));
      sha256 = createHash('sha256').update(content).digest('hex');
      args.contentLen = content.length;
      args.sha256 = sha256;
    }
    const parsed = parseInstructionArgs(kind, args);
    if (!parsed.ok) return neverStarted(deviceId, 'invalid', parsed.message);
    const timeoutMs = req.timeoutMs ?? config.defaultTimeoutMs;
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
      return neverStarted(deviceId, 'invalid', 'timeoutMs must be a positive integer');
    }
    const device = registry.getDevice(deviceId);
    if (device === undefined || device.revokedAt !== null) {
      return neverStarted(
        deviceId,
        'target_unavailable',
        `device ${deviceId} is not enrolled or was revoked`,
      );
    }
    const r = rt(deviceId);
    // A connection still fencing (helloAck sent, generationAck not yet) queues: R10 holds the
    // commit back until the ack, not the host's request.
    const conn = r.conn !== undefined && r.conn.phase !== 'closed' ? r.conn : undefined;
    if (draining || conn === undefined || conn.goodbye) {
      return neverStarted(deviceId, 'target_unavailable', `device ${deviceId} is not connected`);
    }
    if (!r.supports.has(kind)) {
      return neverStarted(deviceId, 'not_supported', `the device does not declare ${kind}`);
    }
    if (kind === 'writeFile' && req.environmentSupports !== undefined) {
      const built = new Set(req.environmentSupports);
      const gained = PROTECTIVE_WRITE_FACES.filter((f) => r.supports.has(f) && !built.has(f));
      if (gained.length > 0) {
        audit('protective_face_gained', deviceId, { gained });
        return neverStarted(
          deviceId,
          'precondition_failed',
          `the device gained ${gained.join(', ')} since this environment was built; refusing a non-atomic writeFile (§3.2)`,
        );
      }
    }
    let resolve!: (o: DeviceOutcome) => void;
    const outcome = new Promise<DeviceOutcome>((res) => (resolve = res));
    const i: Inst = {
      id: mintInstructionId(),
      deviceId,
      kind,
      args,
      content,
      sha256,
      cwd: req.cwd,
      shellEnv: req.shellEnv,
      timeoutMs,
      rootSessionId: req.rootSessionId ?? '',
      state: 'queued',
      stream: makeChunkStream({
        maxEntries: config.reorderMaxEntries,
        maxBytes: config.reorderMaxBytes,
      }),
      output: makeOutputQueue(),
      resolve,
      cancelRequested: false,
    };
    i.output = makeOutputQueue(
      { maxBytes: config.outputMaxBytes, maxEntries: config.outputMaxEntries },
      () => {
        audit('output_overflow', deviceId, { instructionId: i.id });
        cancel(i.id);
      },
    );
    table.set(i.id, i);
    r.queue.push(i);
    pump(r);
    return { instructionId: i.id, output: i.output, outcome, state: () => i.state };
  };

  const sendCancel = (i: Inst) => {
    const conn = activeConn(rt(i.deviceId));
    if (conn === undefined || i.cancelSentGen === conn.gen) return; // at most once per generation
    i.cancelSentGen = conn.gen;
    conn.send({ t: 'cancel', gen: conn.gen, instructionId: i.id });
    armCancelGrace(i);
  };
  const armCancelGrace = (i: Inst) => {
    if (i.cancelGrace !== undefined) clearTimeout(i.cancelGrace);
    i.cancelGrace = unref(
      setTimeout(
        () => settleUnknown(i, `no terminal result within ${config.cancelGraceMs} ms of cancel`),
        config.cancelGraceMs,
      ),
    );
  };

  /** R11. Returns false when the id is not in flight (unknown or already settled). */
  const cancel = (instructionId: string): boolean => {
    const i = table.get(instructionId);
    if (i === undefined) return false;
    if (i.state === 'queued') {
      settle(i, { ok: true, kind: 'cancelled', state: 'not_started' }, 'terminal_never_started');
      return true;
    }
    if (i.cancelRequested) return true; // idempotent
    i.cancelRequested = true;
    armCancelGrace(i);
    sendCancel(i);
    return true;
  };

  /** Stage 2 lookup shared by result and chunk frames. */
  const admit = (
    conn: LaneConn,
    t: 'result' | 'chunk',
    instructionId: string,
  ): Inst | 'memo' | undefined => {
    const i = table.get(instructionId);
    if (i === undefined) {
      const m = memo.get(instructionId);
      if (m !== undefined && m.deviceId !== conn.deviceId) {
        audit('frame_dropped', conn.deviceId, { reason: 'device_mismatch', t, instructionId });
        return undefined;
      }
      if (m !== undefined) return 'memo';
      audit('frame_dropped', conn.deviceId, { reason: 'unknown_instruction', t, instructionId });
      return undefined;
    }
    if (i.deviceId !== conn.deviceId) {
      audit('frame_dropped', conn.deviceId, { reason: 'device_mismatch', t, instructionId });
      return undefined;
    }
    if (i.state !== 'dispatch_committed') {
      audit('frame_dropped', conn.deviceId, {
        reason: 'instruction_not_committed',
        t,
        instructionId,
      });
      return undefined;
    }
    return i;
  };

  /** Why an ok:true outcome cannot be believed for this instruction, or null. */
  const outcomeProblem = (i: Inst, o: DeviceOutcome): string | null => {
    if (!o.ok || o.kind === 'cancelled') return null;
    const want = OUTCOME_KIND_FOR_INSTRUCTION[i.kind];
    if (o.kind !== want)
      return `a ${i.kind} instruction must answer kind "${want}", not "${o.kind}"`;
    const field = STAT_FIELD_FOR_INSTRUCTION[i.kind];
    if (o.kind === 'stat' && field !== undefined && !(field in o))
      return `${i.kind} must carry ${field}`;
    if (i.stream.hasGap) return `the output stream has a gap after streamSeq ${i.stream.watermark}`;
    if (o.kind === 'exec') {
      if (i.stream.exitCount !== 1)
        return `an exec stream must end with exactly one exit chunk (got ${i.stream.exitCount})`;
      if (i.stream.exitCode !== o.exitCode) {
        return `exit chunk exitCode ${String(i.stream.exitCode)} differs from the result's ${o.exitCode}`;
      }
    }
    return null;
  };

  const onResult = (conn: LaneConn, f: ResultFrame) => {
    const i = admit(conn, 'result', f.instructionId);
    if (i === undefined) return;
    // R5/R6 and §2.4: settled (for any reason) → the bare ack, changing nothing.
    conn.send({ t: 'resultAck', gen: conn.gen, instructionId: f.instructionId });
    if (i === 'memo') return;
    const problem = outcomeProblem(i, f.outcome);
    if (problem !== null) {
      audit('protocol_violation', conn.deviceId, { instructionId: i.id, problem });
      settleUnknown(i, `protocol violation: ${problem}`);
      return;
    }
    settle(i, f.outcome);
  };

  const armGap = (i: Inst) => {
    if (i.gap !== undefined) clearTimeout(i.gap);
    i.gap = undefined;
    if (!i.stream.hasGap) return;
    const waiting = i.stream.watermark + 1;
    i.gap = unref(
      setTimeout(
        () =>
          settleUnknown(
            i,
            `streamSeq ${waiting} did not arrive within ${config.chunkGapTimeoutMs} ms (R8)`,
          ),
        config.chunkGapTimeoutMs,
      ),
    );
  };

  /** `data`: the chunk's bytes, decoded once by the frame parser (absent for an exit chunk). */
  const onChunk = (conn: LaneConn, f: ChunkFrame, data: Buffer | undefined) => {
    const i = admit(conn, 'chunk', f.instructionId);
    if (i === undefined) return;
    if (i === 'memo') {
      audit('late_chunk_ignored', conn.deviceId, {
        instructionId: f.instructionId,
        streamSeq: f.streamSeq,
      });
      return;
    }
    const allowed = EXEC_INSTRUCTION_KINDS.has(i.kind)
      ? f.kind !== 'data'
      : READ_INSTRUCTION_KINDS.has(i.kind) && f.kind === 'data';
    if (!allowed) {
      audit('protocol_violation', conn.deviceId, {
        instructionId: i.id,
        problem: `${f.kind} chunk`,
      });
      settleUnknown(
        i,
        `protocol violation: a ${i.kind} instruction cannot stream ${f.kind} chunks`,
      );
      return;
    }
    const item: StreamItem =
      f.kind === 'exit'
        ? { kind: 'exit', exitCode: f.exitCode as number }
        : { kind: f.kind, data: data ?? (decodeCanonicalBase64(f.dataB64) as Buffer) };
    const r = i.stream.accept(f.streamSeq, f.kind, item);
    if (r.status === 'overflow' || r.status === 'violation') {
      audit('protocol_violation', conn.deviceId, { instructionId: i.id, problem: r.message });
      settleUnknown(
        i,
        r.status === 'overflow' ? `${r.message} (R8)` : `protocol violation: ${r.message}`,
      );
      return;
    }
    if (r.status === 'delivered') for (const it of r.items) i.output.push(it);
    if (r.status !== 'duplicate') armGap(i);
    conn.ackChunks(i.id, i.stream.watermark);
  };

  /**
   * A verified hello for `deviceId`: R3 (a new epoch abandons everything in flight, before
   * helloAck) or R2 (same epoch: the in-flight set is re-bound to the new generation).
   */
  const onHelloAccepted = (conn: LaneConn, supports: string[]) => {
    const r = rt(conn.deviceId);
    if (r.graceTimer !== undefined) clearTimeout(r.graceTimer);
    r.graceTimer = undefined;
    if (r.epoch !== undefined && r.epoch !== conn.epoch) {
      for (const i of [...r.inflight.values()]) {
        settleUnknown(i, 'the executor restarted (new epoch); the instruction may have run (R3)');
      }
    }
    r.epoch = conn.epoch;
    r.conn = conn;
    r.supports = new Set(supports.filter((s) => isMember(DEVICE_INSTRUCTION_KINDS, s)));
    const chunkWatermarks: Record<string, number> = {};
    for (const i of r.inflight.values()) {
      chunkWatermarks[i.id] = i.stream.watermark;
      i.cancelSentGen = undefined;
    }
    return { pendingInstructions: [...r.inflight.keys()], chunkWatermarks };
  };

  /** R10: dispatch starts only now; cancels written to a dropped socket are replayed (R11). */
  const onGenerationAck = (conn: LaneConn) => {
    const r = rt(conn.deviceId);
    for (const i of r.inflight.values()) if (i.cancelRequested) sendCancel(i);
    setOnline(r, true);
    pump(r);
  };

  const onGoodbye = (conn: LaneConn) => {
    conn.goodbye = true;
    setOnline(rt(conn.deviceId), false);
  };

  /** The current connection went away: R4's reconnect grace starts. */
  const onConnClosed = (conn: LaneConn) => {
    const r = devices.get(conn.deviceId);
    if (r === undefined || r.conn !== conn) return;
    r.conn = undefined;
    setOnline(r, false);
    if (r.graceTimer !== undefined) clearTimeout(r.graceTimer);
    r.graceTimer = unref(
      setTimeout(() => {
        r.graceTimer = undefined;
        writeOff(r, `no reconnect within ${config.reconnectGraceMs} ms (R4)`);
      }, config.reconnectGraceMs),
    );
  };

  const writeOff = (r: DeviceRt, why: string) => {
    for (const i of [...r.inflight.values()])
      settleUnknown(i, `${why}; the instruction may have run`);
    for (const i of [...r.queue])
      settle(
        i,
        fail('target_unavailable', `${why}; the instruction never started`),
        'terminal_never_started',
      );
  };

  /** R13 `bye`: tell the socket why, then close it. */
  const bye = (conn: LaneConn, reason: 'revoked' | 'draining' | 'superseded') => {
    conn.send({ t: 'bye', gen: conn.gen, reason });
    audit('bye', conn.deviceId, { reason, gen: conn.gen });
    conn.close(1000, reason);
  };

  const revoke = (deviceId: string): boolean => {
    const changed = registry.revoke(deviceId, config.now());
    const r = devices.get(deviceId);
    if (r !== undefined) {
      const conn = r.conn;
      r.conn = undefined;
      setOnline(r, false);
      if (conn !== undefined) bye(conn, 'revoked');
      writeOff(r, 'the device was revoked');
    }
    if (changed) audit('device_revoked', deviceId, {});
    return changed;
  };

  /** A takeover: the old socket is told `superseded`; its in-flight work follows R2/R3 in onHelloAccepted. */
  const supersede = (old: LaneConn) => {
    const r = devices.get(old.deviceId);
    if (r !== undefined && r.conn === old) {
      r.conn = undefined;
      setOnline(r, false);
    }
    bye(old, 'superseded');
  };

  const drain = () => {
    draining = true;
    for (const r of devices.values()) {
      const conn = r.conn;
      r.conn = undefined;
      setOnline(r, false);
      if (r.graceTimer !== undefined) clearTimeout(r.graceTimer);
      if (conn !== undefined) bye(conn, 'draining');
      writeOff(r, 'the lane is draining');
    }
  };

  return {
    dispatch,
    cancel,
    revoke,
    drain,
    supersede,
    onHelloAccepted,
    onGenerationAck,
    onGoodbye,
    onConnClosed,
    onResult,
    onChunk,
    currentConn: (deviceId: string) => devices.get(deviceId)?.conn,
    epochOf: (deviceId: string) => devices.get(deviceId)?.epoch,
    supportsOf: (deviceId: string) => [...(devices.get(deviceId)?.supports ?? [])],
    inflightCount: (deviceId: string) => devices.get(deviceId)?.inflight.size ?? 0,
    get draining() {
      return draining;
    },
  };
};
export type Dispatcher = ReturnType<typeof makeDispatcher>;
