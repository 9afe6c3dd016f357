// One WebSocket to the lane: challenge → hello (§1.3, X7) → helloAck/helloReject (§1.4) →
// the executor fences (§1.5) → generationAck → steady state with heartbeats (R14). The
// connection never sends a second hello, stamps every frame with the gen it was given (R9), and
// holds back non-bye frames until the fence is done.
import { WebSocket } from 'ws';
import type { KeyObject } from 'node:crypto';
import {
  DEVICE_PROTOCOL_VERSION,
  HANDSHAKE_DEADLINE_MS,
  MAX_FRAME_BYTES,
  parseServerFrame,
  signHello,
  isCanonicalGen,
  isMember,
  DEVICE_INSTRUCTION_KINDS,
  type ByeFrame,
  type DeviceGoodbyeReason,
  type DeviceHelloRejectCode,
  type DeviceServerFrame,
  type HelloAckFrame,
  type HelloFrame,
} from '../wire/index.ts';
import type { TimerHandle, Timers } from '../timers.ts';
import { makeFrameWriter, type FrameWriter } from './frame-writer.ts';
import { MAX_NONCE_BYTES } from './limits.ts';
import type { Logger } from './log.ts';

export type ConnectionEnd =
  | {
      readonly kind: 'reject';
      readonly code: DeviceHelloRejectCode;
      readonly minProtocolVersion?: number;
    }
  | { readonly kind: 'bye'; readonly reason: ByeFrame['reason'] }
  | { readonly kind: 'closed'; readonly why: string; readonly wasActive: boolean };

export type HelloParams = {
  readonly deviceId: string;
  readonly epoch: string;
  readonly key: KeyObject;
  readonly workspaceRoot: string;
  readonly supports: readonly string[];
  readonly executorVersion: string;
  readonly unackedResults: number | null;
};

export type SteadyFrame = Exclude<
  DeviceServerFrame,
  { t: 'challenge' | 'helloAck' | 'helloReject' | 'bye' }
>;

/** What the executor does with a live connection. */
export type ConnectionHandler = {
  /** Fence against ack.pendingInstructions; generationAck is sent when this resolves. */
  fence(ack: HelloAckFrame): Promise<void>;
  /** After generationAck: re-send held frames, then take live traffic. */
  activated(conn: Connection): void;
  frame(frame: SteadyFrame, conn: Connection): void;
  /** A frame that failed to parse but names an instruction (answered, never stranded). */
  badInstruction(
    instructionId: string,
    gen: string,
    kindKnown: boolean,
    message: string,
    conn: Connection,
  ): void;
  inflight(): string[];
};

export type Connection = {
  readonly done: Promise<ConnectionEnd>;
  /** The negotiated gen once helloAck arrived. */
  readonly gen: string | null;
  readonly active: boolean;
  /**
   * Sends a frame when active; false otherwise (the outbox keeps it). A Buffer is the frame's
   * UTF-8 text already encoded, and still goes out as a text frame (§2: text frames only).
   */
  send(text: string | Buffer): boolean;
  /**
   * The bulk path (data chunks): a text frame of `length` UTF-8 bytes that `fill` writes at
   * `buf[at…]`, built and masked in a reusable buffer (frame-writer.ts). False when not active.
   */
  sendText(length: number, fill: (buf: Buffer, at: number) => void): boolean;
  /** Bytes queued in the socket, for the outbox's pacing. */
  readonly bufferedAmount: number;
  goodbye(reason: DeviceGoodbyeReason, graceMs: number): void;
  close(why: string): void;
};

export type ConnectionOptions = {
  readonly url: URL;
  readonly hello: HelloParams;
  readonly handler: ConnectionHandler;
  readonly clock: Timers;
  readonly log: Logger;
};

export const openConnection = (opts: ConnectionOptions): Connection => {
  const { clock, log, handler } = opts;
  // No permessage-deflate: besides being useless on base64, it would let ws queue frames, and the
  // frame writer relies on ws writing each frame to the socket at once (see frame-writer.ts).
  const ws = new WebSocket(opts.url, { maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  let writer: FrameWriter | null = null;
  ws.once('upgrade', (res) => (writer = makeFrameWriter(res.socket)));
  let state: 'challenge' | 'hello' | 'fencing' | 'active' | 'closed' = 'challenge';
  let gen: string | null = null;
  let held: SteadyFrame[] = [];
  let heartbeat: TimerHandle | undefined;
  let hbSeq = 0;
  let end: ConnectionEnd | null = null;
  let resolveDone!: (e: ConnectionEnd) => void;
  const done = new Promise<ConnectionEnd>((r) => (resolveDone = r));

  const finish = (e: ConnectionEnd) => {
    if (end) return;
    end = e;
    state = 'closed';
    clock.clearTimeout(deadline);
    if (heartbeat) clock.clearTimeout(heartbeat);
    try {
      ws.close();
    } catch {
      ws.terminate();
    }
    resolveDone(e);
  };
  const deadline = clock.setTimeout(() => {
    if (state === 'challenge' || state === 'hello')
      finish({ kind: 'closed', why: 'handshake deadline', wasActive: false });
  }, HANDSHAKE_DEADLINE_MS);

  const rawSend = (text: string) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(text);
  };

  const scheduleHeartbeat = (intervalMs: number) => {
    heartbeat = clock.setTimeout(() => {
      if (state !== 'active' || gen === null) return;
      rawSend(JSON.stringify({ t: 'heartbeat', gen, seq: hbSeq++, inflight: handler.inflight() }));
      scheduleHeartbeat(intervalMs);
    }, intervalMs);
  };

  const onChallenge = (nonce: string) => {
    // X7: a nonce this long is not a challenge we are willing to sign.
    if (Buffer.byteLength(nonce, 'utf8') > MAX_NONCE_BYTES) {
      log('warn', 'handshake.nonce_refused', { bytes: Buffer.byteLength(nonce, 'utf8') });
      return finish({
        kind: 'closed',
        why: 'challenge nonce over 256 bytes (X7)',
        wasActive: false,
      });
    }
    const h = opts.hello;
    const frame: HelloFrame = {
      t: 'hello',
      protocolVersion: DEVICE_PROTOCOL_VERSION,
      deviceId: h.deviceId,
      epoch: h.epoch,
      signatureB64: signHello(h.key, {
        nonce,
        deviceId: h.deviceId,
        epoch: h.epoch,
        protocolVersion: DEVICE_PROTOCOL_VERSION,
      }),
      platform: { os: process.platform, arch: process.arch, executorVersion: h.executorVersion },
      workspaceRoot: h.workspaceRoot,
      pathFlavor: 'posix',
      supports: [...h.supports],
      ...(h.unackedResults !== null ? { resuming: { unackedResults: h.unackedResults } } : {}),
    };
    state = 'hello';
    rawSend(JSON.stringify(frame));
  };

  const onAck = (ack: HelloAckFrame) => {
    clock.clearTimeout(deadline);
    state = 'fencing';
    gen = ack.gen;
    log('info', 'handshake.ack', { gen: ack.gen, pending: ack.pendingInstructions.length });
    handler.fence(ack).then(
      () => {
        if (state !== 'fencing') return;
        rawSend(JSON.stringify({ t: 'generationAck', gen }));
        state = 'active';
        scheduleHeartbeat(ack.heartbeatIntervalMs);
        handler.activated(conn);
        const queued = held;
        held = [];
        for (const f of queued) handler.frame(f, conn);
      },
      (e: unknown) => {
        log('error', 'fence.failed', { error: e instanceof Error ? e.message : 'unknown' });
        finish({ kind: 'closed', why: 'fence failed', wasActive: false });
      },
    );
  };

  const onUnparsable = (text: string, message: string) => {
    // An instruction we cannot parse still crossed the server's one-way commit: answer it.
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return;
    }
    const o = v as Record<string, unknown>;
    if (
      o &&
      o.t === 'instruction' &&
      typeof o.instructionId === 'string' &&
      o.instructionId !== '' &&
      isCanonicalGen(o.gen)
    ) {
      handler.badInstruction(
        o.instructionId,
        o.gen,
        isMember(DEVICE_INSTRUCTION_KINDS, o.kind),
        message,
        conn,
      );
    }
  };

  ws.on('message', (data, isBinary) => {
    if (state === 'closed') return;
    if (isBinary) return log('warn', 'frame.binary_ignored');
    const text = data.toString();
    const parsed = parseServerFrame(text);
    if (!parsed.ok) {
      log('warn', 'frame.refused', { code: parsed.code, state });
      if (state === 'challenge' || state === 'hello') {
        return finish({
          kind: 'closed',
          why: `malformed frame during handshake (${parsed.code})`,
          wasActive: false,
        });
      }
      return onUnparsable(text, parsed.message);
    }
    const f = parsed.value;
    if (f.t === 'ping') return;
    if (state === 'challenge') {
      if (f.t !== 'challenge')
        return finish({ kind: 'closed', why: `expected challenge, got ${f.t}`, wasActive: false });
      return onChallenge(f.nonce);
    }
    if (state === 'hello') {
      if (f.t === 'helloAck') return onAck(f);
      if (f.t === 'helloReject') {
        return finish({
          kind: 'reject',
          code: f.code,
          ...(f.minProtocolVersion !== undefined
            ? { minProtocolVersion: f.minProtocolVersion }
            : {}),
        });
      }
      return log('warn', 'frame.before_ack_ignored', { type: f.t });
    }
    if (f.t === 'challenge' || f.t === 'helloAck' || f.t === 'helloReject') {
      return log('warn', 'frame.handshake_repeat_ignored', { type: f.t });
    }
    if (f.gen !== gen) return log('warn', 'frame.gen_mismatch_ignored', { type: f.t });
    if (f.t === 'bye') return finish({ kind: 'bye', reason: f.reason });
    if (state === 'fencing') held.push(f);
    else handler.frame(f, conn);
  });
  ws.on('close', (code) =>
    finish({ kind: 'closed', why: `socket closed (${code})`, wasActive: state === 'active' }),
  );
  ws.on('error', (e) => {
    log('warn', 'socket.error', { error: (e as NodeJS.ErrnoException).code ?? e.message });
    finish({ kind: 'closed', why: 'socket error', wasActive: state === 'active' });
  });

  const conn: Connection = {
    done,
    get gen() {
      return gen;
    },
    get active() {
      return state === 'active';
    },
    send(text) {
      if (state !== 'active' || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(text, { binary: false });
      return true;
    },
    sendText(length, fill) {
      if (state !== 'active' || ws.readyState !== WebSocket.OPEN || writer === null) return false;
      writer.sendText(length, fill);
      return true;
    },
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    goodbye(reason, graceMs) {
      if (state === 'active' && gen !== null)
        rawSend(JSON.stringify({ t: 'goodbye', gen, reason, graceMs }));
    },
    close: (why) => finish({ kind: 'closed', why, wasActive: state === 'active' }),
  };
  return conn;
};
