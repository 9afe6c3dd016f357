import { afterEach, describe, expect, it } from 'vitest';
import { barrier, collect, startTestLane, type TestLane } from '../test-support/lane-fixture.ts';
import { makeManualTimers } from '../../testkit/manual-clock.ts';

let t: TestLane | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});
const EXEC0 = { ok: true, kind: 'exec', exitCode: 0 };
const VOID = { ok: true, kind: 'void' };

describe('§5.2 reliability rules R1–R15', () => {
  it('R1: given an instruction was written, when the connection drops, then it is never sent again', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'true' } });
    await dev.next('instruction');
    await dev.cut();
    // same epoch: resumed, not re-dispatched
    const again = await t.connect(id, { epoch: dev.epoch });
    const ack = await again.handshake();
    expect(ack.pendingInstructions).toEqual([h.instructionId]);
    await barrier(t, again, id.deviceId);
    expect(again.pending().filter((f) => f.t === 'instruction')).toEqual([]);
    // new epoch: abandoned, not re-dispatched
    await again.cut();
    const fresh = await t.connect(id);
    expect((await fresh.handshake()).pendingInstructions).toEqual([]);
    await barrier(t, fresh, id.deviceId);
    expect(fresh.pending().filter((f) => f.t === 'instruction')).toEqual([]);
    expect(await h.outcome).toMatchObject({ ok: false, errorCode: 'outcome_unknown' });
  });

  it('R2: given a same-epoch reconnect, then pendingInstructions lists I with its watermark and the stream resumes', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'yes | head' } });
    const out = collect(h);
    await dev.next('instruction');
    dev.chunk(h.instructionId, 0, 'stdout', 'a');
    dev.chunk(h.instructionId, 1, 'stderr', 'b');
    await dev.next('chunkAck', (f) => f.upToStreamSeq === 1);
    await dev.cut();
    const again = await t.connect(id, { epoch: dev.epoch });
    const ack = await again.handshake();
    expect(Number(ack.gen)).toBeGreaterThan(Number(dev.gen));
    expect(ack.pendingInstructions).toEqual([h.instructionId]);
    expect(ack.chunkWatermarks).toEqual({ [h.instructionId]: 1 });
    again.chunk(h.instructionId, 2, 'stdout', 'c');
    again.chunk(h.instructionId, 3, 'exit', 0);
    again.result(h.instructionId, EXEC0);
    expect(await h.outcome).toEqual(EXEC0);
    const items = await out;
    expect(
      items.map((i) => (i.kind === 'exit' ? `exit:${i.exitCode}` : `${i.kind}:${i.data}`)),
    ).toEqual(['stdout:a', 'stderr:b', 'stdout:c', 'exit:0']);
  });

  it('R3: given a new epoch, then in-flight work is settled outcome_unknown before helloAck and absent from it', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    await dev.next('instruction');
    await dev.cut();
    let settledFirst = false;
    void h.outcome.then(() => (settledFirst = true));
    const restarted = await t.connect(id);
    const ack = await restarted.handshake();
    expect(settledFirst).toBe(true);
    expect(ack.pendingInstructions).toEqual([]);
    expect(await h.outcome).toMatchObject({ ok: false, errorCode: 'outcome_unknown' });
    // a later result is memo-acked, not believed; a later chunk is dropped
    restarted.result(h.instructionId, EXEC0);
    await restarted.next('resultAck', (f) => f.instructionId === h.instructionId);
    restarted.chunk(h.instructionId, 0, 'stdout', 'x');
    await t.audited((e) => e.event === 'late_chunk_ignored');
    expect(await h.outcome).toMatchObject({ errorCode: 'outcome_unknown' });
  });

  it('R4: given no reconnect within the grace, then the books close: outcome_unknown and not listed later', async () => {
    t = await startTestLane({ reconnectGraceMs: 50 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'true' } });
    await dev.next('instruction');
    await dev.cut();
    expect(await h.outcome).toMatchObject({
      ok: false,
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/R4/),
    });
    const again = await t.connect(id, { epoch: dev.epoch });
    expect((await again.handshake()).pendingInstructions).toEqual([]);
  });

  it('R5: given a lost resultAck, when the same result is re-sent, then it is re-acked and nothing changes', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'remove', args: { path: '/x' } });
    await dev.next('instruction');
    dev.result(h.instructionId, VOID, 3);
    await dev.next('resultAck');
    await dev.cut();
    const again = await t.connect(id, { epoch: dev.epoch });
    await again.handshake();
    again.result(h.instructionId, VOID, 3);
    expect(await again.next('resultAck')).toMatchObject({
      instructionId: h.instructionId,
      gen: again.gen,
    });
    expect(await h.outcome).toEqual(VOID);
  });

  it('R6: given deviceSeq n was accepted, when a result with deviceSeq ≤ n arrives, then it is absorbed without touching the outcome', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'true' } });
    await dev.next('instruction');
    dev.chunk(h.instructionId, 0, 'exit', 0);
    dev.result(h.instructionId, EXEC0, 0);
    dev.result(h.instructionId, { ok: false, errorCode: 'unknown', message: 'retransmit' }, 0);
    await dev.next('resultAck');
    await dev.next('resultAck');
    expect(await h.outcome).toEqual(EXEC0);
  });

  it('§4 chunkAck is a cumulative watermark: the acks for a burst of chunks are folded, and never sent after the frame that follows them', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'seq 10' } });
    const out = collect(h);
    await dev.next('instruction');
    for (let s = 0; s < 10; s += 1) dev.chunk(h.instructionId, s, 'stdout', String(s));
    dev.chunk(h.instructionId, 10, 'exit', 0);
    dev.result(h.instructionId, EXEC0);
    await dev.next('resultAck');
    const acks = dev.pending().filter((f) => f.t === 'chunkAck');
    expect(acks.length).toBeGreaterThan(0);
    expect(acks.length).toBeLessThan(11);
    expect(acks.at(-1)).toMatchObject({ instructionId: h.instructionId, upToStreamSeq: 10 });
    const seqs = acks.map((f) => (f.t === 'chunkAck' ? f.upToStreamSeq : -2));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(await h.outcome).toEqual(EXEC0);
    expect((await out).map((i) => (i.kind === 'exit' ? 'exit' : String(i.data))).join('')).toBe(
      '0123456789exit',
    );
  });

  it('R7: given chunks at or below the watermark are re-sent, then they are absorbed and the watermark re-acked; a buffered seq keeps its first copy', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'readTextFile', args: { path: '/f' } });
    const out = collect(h);
    await dev.next('instruction');
    dev.chunk(h.instructionId, 0, 'data', 'A');
    expect((await dev.next('chunkAck')).upToStreamSeq).toBe(0);
    dev.chunk(h.instructionId, 0, 'data', 'Z');
    expect((await dev.next('chunkAck')).upToStreamSeq).toBe(0);
    dev.chunk(h.instructionId, 2, 'data', 'C');
    expect((await dev.next('chunkAck')).upToStreamSeq).toBe(0);
    dev.chunk(h.instructionId, 2, 'data', 'X');
    expect((await dev.next('chunkAck')).upToStreamSeq).toBe(0);
    dev.chunk(h.instructionId, 1, 'data', 'B');
    expect((await dev.next('chunkAck')).upToStreamSeq).toBe(2);
    dev.result(h.instructionId, { ok: true, kind: 'read' });
    await h.outcome;
    expect(Buffer.concat((await out).map((i) => i.data as Buffer)).toString()).toBe('ABC');
  });

  it('R8: given a gap, when it is not filled within the gap timeout, then the instruction fails outcome_unknown', async () => {
    t = await startTestLane({ chunkGapTimeoutMs: 40 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'x' } });
    await dev.next('instruction');
    dev.chunk(h.instructionId, 0, 'stdout', 'a');
    dev.chunk(h.instructionId, 2, 'stdout', 'c');
    expect(await h.outcome).toMatchObject({
      ok: false,
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/streamSeq 1/),
    });
  });

  it('R8: given the reorder buffer overflows (entries), then the instruction fails outcome_unknown', async () => {
    t = await startTestLane({ reorderMaxEntries: 2 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'execStream', args: { command: 'x' } });
    await dev.next('instruction');
    for (const s of [1, 2, 3]) dev.chunk(h.instructionId, s, 'stdout', 'x');
    expect(await h.outcome).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/overflow/),
    });
  });

  it('R8: given the reorder buffer overflows (bytes), then the instruction fails outcome_unknown', async () => {
    t = await startTestLane({ reorderMaxBytes: 10 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'readBinaryFile', args: { path: '/b' } });
    await dev.next('instruction');
    dev.chunk(h.instructionId, 1, 'data', '123456');
    dev.chunk(h.instructionId, 2, 'data', '123456');
    expect(await h.outcome).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/overflow/),
    });
  });

  it('R9: given a takeover, frames from the superseded socket are void (generation_mismatch, no ack)', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'remove', args: { path: '/x' } });
    await dev.next('instruction');
    const again = await t.connect(id, { epoch: dev.epoch });
    await again.handshake();
    expect(await dev.next('bye')).toMatchObject({ reason: 'superseded' });
    // the old socket may still deliver bytes before its close completes: they are void
    if (dev.closeInfo === undefined) {
      dev.result(h.instructionId, VOID);
      await Promise.race([
        t.audited((e) => e.event === 'frame_dropped' && e.reason === 'generation_mismatch'),
        dev.closed,
      ]);
    }
    expect(h.state()).toBe('dispatch_committed');
    again.result(h.instructionId, VOID);
    expect(await h.outcome).toEqual(VOID);
  });

  it('R10: given helloAck(G), when generationAck has not been sent, then nothing is dispatched', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    const dev = await t.connect(id);
    const ack = await dev.hello();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exists', args: { path: '/q' } });
    expect(h.state()).toBe('queued');
    // a heartbeat round trip later, still nothing
    dev.send({ t: 'heartbeat', gen: dev.gen, seq: 0, inflight: [] });
    dev.send({ t: 'generationAck', gen: String(Number(ack.t === 'helloAck' ? ack.gen : 0) + 5) });
    await t.audited((e) => e.event === 'frame_dropped' && e.reason === 'generation_mismatch');
    expect(dev.pending().filter((f) => f.t === 'instruction')).toEqual([]);
    dev.send({ t: 'generationAck', gen: dev.gen });
    expect((await dev.next('instruction')).instructionId).toBe(h.instructionId);
  });

  it('maxInflight: at most maxInflight instructions are committed at once', async () => {
    t = await startTestLane({ maxInflight: 2 });
    const { id, dev } = await t.online();
    const hs = [1, 2, 3].map((n) =>
      t!.lane.dispatch(id.deviceId, { kind: 'createDir', args: { path: `/${n}` } }),
    );
    await dev.next('instruction');
    await dev.next('instruction');
    expect(hs.map((h) => h.state())).toEqual([
      'dispatch_committed',
      'dispatch_committed',
      'queued',
    ]);
    dev.result(hs[0]!.instructionId, VOID);
    expect((await dev.next('instruction')).instructionId).toBe(hs[2]!.instructionId);
  });

  it('R11: cancel is sent once per generation, demands a terminal, and a queued instruction cancels as not_started', async () => {
    t = await startTestLane({ maxInflight: 1 });
    const { id, dev } = await t.online();
    const running = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    const queued = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    await dev.next('instruction');
    expect(t.lane.cancel(queued.instructionId)).toBe(true);
    expect(await queued.outcome).toEqual({ ok: true, kind: 'cancelled', state: 'not_started' });
    expect(queued.state()).toBe('terminal_never_started');
    expect(t.lane.cancel(running.instructionId)).toBe(true);
    expect(t.lane.cancel(running.instructionId)).toBe(true);
    expect(await dev.next('cancel')).toEqual({
      t: 'cancel',
      gen: dev.gen,
      instructionId: running.instructionId,
    });
    dev.result(running.instructionId, { ok: true, kind: 'cancelled', state: 'killed' });
    expect(await running.outcome).toEqual({ ok: true, kind: 'cancelled', state: 'killed' });
    expect(dev.pending().filter((f) => f.t === 'cancel')).toEqual([]);
    expect(t.lane.cancel(running.instructionId)).toBe(false);
  });

  it('R11: given no terminal within the cancel grace, then the instruction settles outcome_unknown', async () => {
    t = await startTestLane({ cancelGraceMs: 40 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    await dev.next('instruction');
    t.lane.cancel(h.instructionId);
    await dev.next('cancel');
    expect(await h.outcome).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/cancel/),
    });
  });

  it('R11: a cancel written to a socket that dropped is replayed after a same-epoch reconnect', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    await dev.next('instruction');
    t.lane.cancel(h.instructionId);
    await dev.next('cancel');
    await dev.cut();
    const again = await t.connect(id, { epoch: dev.epoch });
    await again.handshake();
    expect(await again.next('cancel')).toEqual({
      t: 'cancel',
      gen: again.gen,
      instructionId: h.instructionId,
    });
    again.result(h.instructionId, { ok: true, kind: 'cancelled', state: 'killed' });
    expect(await h.outcome).toMatchObject({ kind: 'cancelled' });
  });

  it('R12: given no answer, the server gives up at timeoutMs + grace with outcome_unknown; a later result is only memo-acked', async () => {
    t = await startTestLane({ executionGraceMs: 30 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, {
      kind: 'exec',
      args: { command: 'sleep 9' },
      timeoutMs: 20,
    });
    expect((await dev.next('instruction')).timeoutMs).toBe(20);
    expect(await h.outcome).toMatchObject({
      errorCode: 'outcome_unknown',
      message: expect.stringMatching(/ceiling/),
    });
    dev.result(h.instructionId, { ok: false, errorCode: 'timeout', message: 'killed at 20 ms' });
    await dev.next('resultAck');
    expect(await h.outcome).toMatchObject({ errorCode: 'outcome_unknown' });
  });

  it("R12: the executor's own timeout answer is passed through as the retryable `timeout`", async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, {
      kind: 'exec',
      args: { command: 'sleep 9' },
      timeoutMs: 20,
    });
    await dev.next('instruction');
    dev.result(h.instructionId, { ok: false, errorCode: 'timeout', message: 'killed after 20 ms' });
    expect(await h.outcome).toEqual({
      ok: false,
      errorCode: 'timeout',
      message: 'killed after 20 ms',
    });
  });

  it('R13 revoked: bye revoked, in-flight written off as outcome_unknown, socket closed, later hello refused', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    await dev.next('instruction');
    t.lane.revoke(id.deviceId);
    expect(await dev.next('bye')).toEqual({ t: 'bye', gen: dev.gen, reason: 'revoked' });
    await dev.closed;
    expect(await h.outcome).toMatchObject({ errorCode: 'outcome_unknown' });
    expect(await (await t.connect(id)).hello()).toEqual({ t: 'helloReject', code: 'revoked' });
  });

  it('R13 draining: bye draining to every connection, in-flight written off, new dispatch never starts', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    await dev.next('instruction');
    const drained = t.lane.drain();
    expect(await dev.next('bye')).toMatchObject({ reason: 'draining' });
    await drained;
    expect(await h.outcome).toMatchObject({ errorCode: 'outcome_unknown' });
    const after = t.lane.dispatch(id.deviceId, { kind: 'exists', args: { path: '/' } });
    expect(await after.outcome).toMatchObject({ errorCode: 'target_unavailable' });
    expect(after.state()).toBe('terminal_never_started');
  });

  it('R13 superseded: a stale connection is taken over by a new epoch; the old one gets bye superseded and its work is written off', async () => {
    let clock = 1_000_000;
    t = await startTestLane({ now: () => clock, heartbeatIntervalMs: 10_000 });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'sleep 9' } });
    await dev.next('instruction');
    // a fresh connection with a different epoch cannot take the lease
    const rival = await t.connect(id);
    expect(await rival.hello()).toEqual({ t: 'helloReject', code: 'already_connected' });
    // once the old one is stale (3 missed heartbeats by the clock), a new epoch takes over
    clock += 30_000;
    const next = await t.connect(id);
    const ack = await next.handshake();
    expect(await dev.next('bye')).toMatchObject({ reason: 'superseded' });
    expect(ack.pendingInstructions).toEqual([]);
    expect(await h.outcome).toMatchObject({ errorCode: 'outcome_unknown' });
  });

  it('§1.4 already_connected: a deployment that forbids takeover refuses even the same epoch', async () => {
    t = await startTestLane({ allowTakeover: false });
    const { id, dev } = await t.online();
    const twin = await t.connect(id, { epoch: dev.epoch });
    expect(await twin.hello()).toEqual({ t: 'helloReject', code: 'already_connected' });
    expect(dev.closeInfo).toBeUndefined();
  });

  it('R14: given no frame for 3 × heartbeatIntervalMs, the connection is closed and in-flight work enters the grace', async () => {
    const clock = makeManualTimers();
    t = await startTestLane({ heartbeatIntervalMs: 80, clock });
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'exec', args: { command: 'x' } });
    // the instruction follows the lane's reading of generationAck, the device's last frame
    await dev.next('instruction');
    clock.advance(239);
    expect(t.events.filter((e) => e.event === 'liveness_timeout')).toEqual([]);
    clock.advance(1);
    await dev.closed;
    expect(await t.audited((e) => e.event === 'liveness_timeout')).toMatchObject({ afterMs: 240 });
    expect(h.state()).toBe('dispatch_committed');
    const again = await t.connect(id, { epoch: dev.epoch });
    expect((await again.handshake()).pendingInstructions).toEqual([h.instructionId]);
  });

  it('R14: heartbeats keep a quiet connection alive', async () => {
    const clock = makeManualTimers();
    t = await startTestLane({ heartbeatIntervalMs: 150, clock });
    const { id, dev } = await t.online();
    // seven heartbeats 150 ms apart on the lane's clock outlive two liveness windows (450 ms each)
    for (let seq = 0; seq < 7; seq++) {
      const rearmed = clock.whenArmed(450); // the lane read the heartbeat and restarted liveness
      dev.send({ t: 'heartbeat', gen: dev.gen, seq, inflight: [] });
      await rearmed;
      clock.advance(150);
    }
    await barrier(t, dev, id.deviceId);
    expect(t.events.filter((e) => e.event === 'liveness_timeout')).toEqual([]);
    expect(dev.closeInfo).toBeUndefined();
  });

  it('R15: after goodbye, new dispatches never start, in-flight results are still collected, the socket closes after graceMs', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'remove', args: { path: '/x' } });
    await dev.next('instruction');
    dev.send({ t: 'goodbye', gen: dev.gen, reason: 'shutdown', graceMs: 60 });
    await t.audited((e) => e.event === 'goodbye');
    const late = t.lane.dispatch(id.deviceId, { kind: 'exists', args: { path: '/' } });
    expect(await late.outcome).toMatchObject({ errorCode: 'target_unavailable' });
    dev.result(h.instructionId, VOID);
    expect(await h.outcome).toEqual(VOID);
    expect((await dev.closed).code).toBe(1000);
  });
});
