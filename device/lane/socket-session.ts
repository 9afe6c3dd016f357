import { randomBytes, verify } from 'node:crypto';
import type { WebSocket } from 'ws';
import {
  BINARY_FRAME_REJECT,
  buildHelloSignaturePayload,
  decodeCanonicalBase64,
  decodeUlid16,
  DEVICE_MIN_PROTOCOL_VERSION,
  DEVICE_PROTOCOL_VERSION,
  ed25519PublicKeyFromRaw,
  ED25519_SIGNATURE_BYTES,
  encodeFrame,
  isDeviceId,
  MAX_FRAME_BYTES,
  MAX_PRE_AUTH_FRAME_BYTES,
  NOT_UTF8,
  parseDeviceFrameBytes,
  type DeviceHelloRejectCode,
  type DeviceServerFrame,
  type HelloFrame,
} from '../wire/index.ts';
import type { TimerHandle } from '../timers.ts';
import type { Audit, Dispatcher, LaneConn } from './dispatcher.ts';
import type { LaneConfig } from './options.ts';
import type { Registry } from './registry.ts';

/** Close codes: 1008 policy violation (handshake failures), 1000 normal (bye). */
const POLICY = 1008;
/** How long a chunkAck may wait to be folded with the next ones (see ackChunks). */
const CHUNK_ACK_DELAY_MS = 5;
let nextConnId = 1;

/**
 * One WebSocket from open to close: the challenge, the 5 s handshake deadline, the pre-auth cap,
 * signature verification and the lease (§1.2–1.5), then the stage-2 gate of §2.4 in front of the
 * dispatcher. Liveness (R14): no frame at all for livenessHeartbeats × heartbeatIntervalMs closes.
 */
export const runSocketSession = (deps: {
  ws: WebSocket;
  config: LaneConfig;
  registry: Registry;
  dispatcher: Dispatcher;
  audit: Audit;
  onHandshakeDone: () => void;
}) => {
  const { ws, config, registry, dispatcher, audit } = deps;
  const connId = nextConnId++;
  const nonce = randomBytes(24).toString('base64url');
  type Phase = 'awaiting_hello' | 'verifying' | 'fencing' | 'active' | 'closed';
  let phase: Phase = 'awaiting_hello';
  let conn: (LaneConn & { phase: 'fencing' | 'active' | 'closed' }) | undefined;
  let handshakeDone = false;
  const { clock } = config;
  let liveness: TimerHandle | undefined;
  /** Stage 0 failed: like ws, read nothing more from this socket. */
  let transportError = false;

  // chunkAck is a cumulative watermark (§4), so the acks owed for a burst of chunks collapse into
  // one frame per instruction, sent CHUNK_ACK_DELAY_MS after the first one is owed. Any other frame
  // flushes them first, so the device sees the same order as if each chunk had been acked at once,
  // only with fewer acks. One small write per 64 KiB chunk otherwise costs the lane a syscall and
  // the executor a wake-up and a frame parse each; the executor's unacked window (16 MiB) is far
  // larger than what arrives in the delay.
  const owedAcks = new Map<string, number>();
  let ackTimer: TimerHandle | undefined;
  const flushAcks = () => {
    if (ackTimer) clock.clearTimeout(ackTimer);
    ackTimer = undefined;
    if (owedAcks.size === 0) return;
    const gen = conn?.gen;
    for (const [instructionId, upToStreamSeq] of owedAcks) {
      if (gen !== undefined && ws.readyState === ws.OPEN)
        ws.send(encodeFrame({ t: 'chunkAck', gen, instructionId, upToStreamSeq }));
    }
    owedAcks.clear();
  };
  const send = (f: DeviceServerFrame) => {
    flushAcks();
    if (ws.readyState === ws.OPEN) ws.send(encodeFrame(f));
  };
  const ackChunks = (instructionId: string, upToStreamSeq: number) => {
    owedAcks.set(instructionId, upToStreamSeq);
    if (ackTimer === undefined) ackTimer = clock.setTimeout(flushAcks, CHUNK_ACK_DELAY_MS);
  };
  const finishHandshake = () => {
    if (!handshakeDone) {
      handshakeDone = true;
      clock.clearTimeout(deadline);
      deps.onHandshakeDone();
    }
  };
  const close = (code: number, reason: string) => {
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason);
  };
  const livenessMs = config.heartbeatIntervalMs * config.livenessHeartbeats;
  const refreshLiveness = () => {
    if (conn !== undefined) conn.lastFrameAt = config.now();
    if (phase !== 'fencing' && phase !== 'active') return;
    if (liveness) clock.clearTimeout(liveness);
    liveness = clock.setTimeout(() => {
      audit('liveness_timeout', conn?.deviceId ?? null, { connId, afterMs: livenessMs });
      ws.terminate();
    }, livenessMs);
  };

  const deadline = clock.setTimeout(() => {
    audit('handshake_timeout', null, { connId, afterMs: config.handshakeDeadlineMs });
    close(POLICY, 'handshake deadline');
  }, config.handshakeDeadlineMs);

  const reject = (code: DeviceHelloRejectCode, detail: object, deviceId: string | null) => {
    audit('hello_rejected', deviceId, { connId, code, ...detail });
    send({
      t: 'helloReject',
      code,
      ...(code === 'protocol_version_unsupported'
        ? { minProtocolVersion: DEVICE_MIN_PROTOCOL_VERSION }
        : {}),
    });
    finishHandshake();
    close(POLICY, code);
  };

  const handleHello = async (h: HelloFrame) => {
    phase = 'verifying'; // the nonce is consumed now, whether or not the signature verifies
    // The registry lookup is treated as asynchronous, so frames that arrive meanwhile meet the
    // "handshake in flight" rule of §2.4 rather than racing it.
    await new Promise((r) => setImmediate(r));
    if (phase !== 'verifying') return;
    if (
      h.protocolVersion < DEVICE_MIN_PROTOCOL_VERSION ||
      h.protocolVersion > DEVICE_PROTOCOL_VERSION
    ) {
      return reject('protocol_version_unsupported', { protocolVersion: h.protocolVersion }, null);
    }
    if (dispatcher.draining) return reject('draining', {}, null);
    const why = verifyHello(h);
    if (why !== null)
      return reject('auth_failed', { why }, isDeviceId(h.deviceId) ? h.deviceId : null);
    const device = registry.getDevice(h.deviceId)!;
    if (device.revokedAt !== null) return reject('revoked', {}, h.deviceId);
    const old = dispatcher.currentConn(h.deviceId);
    if (old !== undefined && old.phase !== 'closed') {
      const fresh = config.now() - old.lastFrameAt < livenessMs;
      const sameEpoch = dispatcher.epochOf(h.deviceId) === h.epoch;
      if (!config.allowTakeover || (fresh && !sameEpoch)) {
        return reject('already_connected', { fresh, sameEpoch }, h.deviceId);
      }
      audit('lease_taken_over', h.deviceId, { connId, fresh, sameEpoch });
      dispatcher.supersede(old);
    }
    const gen = registry.nextGen(h.deviceId);
    conn = {
      id: connId,
      deviceId: h.deviceId,
      gen,
      epoch: h.epoch,
      phase: 'fencing',
      goodbye: false,
      issuedSeq: 0,
      lastFrameAt: config.now(),
      send,
      ackChunks,
      close: (code, reason) => {
        conn!.phase = 'closed';
        close(code, reason);
      },
    };
    const { pendingInstructions, chunkWatermarks } = dispatcher.onHelloAccepted(conn, h.supports);
    phase = 'fencing';
    send({
      t: 'helloAck',
      ok: true,
      heartbeatIntervalMs: config.heartbeatIntervalMs,
      maxInflight: config.maxInflight,
      gen,
      pendingInstructions,
      chunkWatermarks,
    });
    audit('hello_accepted', h.deviceId, {
      connId,
      gen,
      epoch: h.epoch,
      pending: pendingInstructions.length,
    });
    finishHandshake();
    refreshLiveness();
  };

  /** Every failure is the same `auth_failed` on the wire; the reason is for the audit trail. */
  const verifyHello = (h: HelloFrame): string | null => {
    if (!isDeviceId(h.deviceId)) return 'malformed device id';
    if (decodeUlid16(h.epoch) === null) return 'malformed epoch';
    let device;
    try {
      device = registry.getDevice(h.deviceId);
    } catch {
      return 'registry unreachable';
    }
    if (device === undefined) return 'unknown device';
    const sig = decodeCanonicalBase64(h.signatureB64);
    if (sig === null || sig.length !== ED25519_SIGNATURE_BYTES) return 'malformed signature';
    const payload = buildHelloSignaturePayload({
      nonce,
      deviceId: h.deviceId,
      epoch: h.epoch,
      protocolVersion: h.protocolVersion,
    });
    const key = ed25519PublicKeyFromRaw(decodeCanonicalBase64(device.pubkey) as Buffer);
    return verify(null, payload, key, sig) ? null : 'bad signature';
  };

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (transportError) return;
    refreshLiveness();
    const preAuth = phase === 'awaiting_hello' || phase === 'verifying';
    const parsed = isBinary
      ? BINARY_FRAME_REJECT
      : parseDeviceFrameBytes(data, {
          maxBytes: preAuth ? MAX_PRE_AUTH_FRAME_BYTES : MAX_FRAME_BYTES,
          // The message buffer is ws's gift to this handler and nothing reads it afterwards: a
          // chunk's data is decoded over it rather than into a fresh 64 KiB allocation.
          decodeInPlace: true,
          // ws skips its UTF-8 check here (lane.ts): a chunk the scan accepts is ASCII throughout,
          // and every other text frame is checked by the parser, with ws's verdict (1007).
          checkUtf8: true,
        });
    if (parsed === NOT_UTF8) {
      transportError = true;
      close(1007, 'invalid UTF-8');
      return;
    }
    const deviceId = conn?.deviceId ?? null;
    if (!parsed.ok) {
      audit('frame_rejected', deviceId, {
        connId,
        reason: parsed.code,
        message: parsed.message,
        preAuth,
      });
      if (preAuth) close(POLICY, parsed.code); // stage 1 before the handshake: connection closed
      return;
    }
    const f = parsed.value.frame;
    if (phase === 'closed') return;
    if (phase === 'awaiting_hello') {
      if (f.t !== 'hello') {
        audit('frame_dropped', null, { connId, reason: 'pre_hello', t: f.t });
        close(POLICY, 'pre_hello');
        return;
      }
      handleHello(f).catch((e: unknown) => {
        // The spec folds "registry unreachable" into auth_failed; the cause goes to the audit.
        if (phase === 'verifying')
          reject('auth_failed', { why: `registry error: ${String(e)}` }, null);
      });
      return;
    }
    if (phase === 'verifying' || f.t === 'hello') {
      // A stray frame must not kill a legitimate handshake, and a second hello is just dropped.
      audit('frame_dropped', deviceId, { connId, reason: 'pre_hello', t: f.t });
      return;
    }
    const c = conn!;
    if (f.gen !== c.gen || dispatcher.currentConn(c.deviceId) !== c) {
      audit('frame_dropped', c.deviceId, {
        connId,
        reason: 'generation_mismatch',
        t: f.t,
        gen: f.gen,
        current: c.gen,
      });
      return;
    }
    switch (f.t) {
      case 'generationAck':
        if (c.phase !== 'fencing') {
          audit('generation_ack_repeated', c.deviceId, { connId, gen: f.gen });
          return;
        }
        c.phase = 'active';
        phase = 'active';
        audit('generation_acked', c.deviceId, { connId, gen: c.gen });
        dispatcher.onGenerationAck(c);
        return;
      case 'heartbeat':
        return;
      case 'goodbye': {
        audit('goodbye', c.deviceId, { connId, reason: f.reason, graceMs: f.graceMs ?? null });
        dispatcher.onGoodbye(c);
        const grace = clock.setTimeout(
          () => close(1000, 'goodbye'),
          f.graceMs ?? config.reconnectGraceMs,
        );
        ws.once('close', () => clock.clearTimeout(grace));
        return;
      }
      case 'result':
        dispatcher.onResult(c, f);
        return;
      case 'chunk':
        dispatcher.onChunk(c, f, parsed.value.data);
        return;
    }
  });

  ws.on('close', () => {
    phase = 'closed';
    if (ackTimer) clock.clearTimeout(ackTimer);
    owedAcks.clear();
    clock.clearTimeout(deadline);
    if (liveness) clock.clearTimeout(liveness);
    finishHandshake();
    if (conn !== undefined) {
      conn.phase = 'closed';
      dispatcher.onConnClosed(conn);
    }
  });
  ws.on('error', () => {
    /* the close event follows; nothing to add */
  });

  send({ t: 'challenge', nonce, protocolVersion: DEVICE_PROTOCOL_VERSION });
};
