import { afterEach, describe, expect, it } from 'vitest';
import { barrier, startTestLane, type TestLane } from '../test-support/lane-fixture.ts';

let t: TestLane | undefined;
afterEach(async () => {
  await t?.stop();
  t = undefined;
});
const VOID = { ok: true, kind: 'void' };
const EXISTS = { ok: true, kind: 'stat', existsValue: true };

describe('§2.4 stage 1 before the handshake: a malformed frame closes the connection', () => {
  const cases: [string, (d: Awaited<ReturnType<TestLane['connect']>>) => void][] = [
    ['frame_too_large', (d) => d.send({ ...d.buildHello(), workspaceRoot: '/'.repeat(5000) })],
    ['not_json', (d) => d.sendRaw('{"t":"hello"')],
    ['not_json', (d) => d.sendRaw(Buffer.from('{}'), true)],
    ['not_object', (d) => d.sendRaw('[]')],
    ['unknown_type', (d) => d.send({ t: 'helloo' })],
    ['bad_shape', (d) => d.send({ ...d.buildHello(), supports: 'exec' })],
  ];
  for (const [reason, act] of cases) {
    it(`${reason}: audited and the socket is closed`, async () => {
      t = await startTestLane();
      const id = await t.enroll();
      const dev = await t.connect(id);
      act(dev);
      expect((await dev.closed).code).toBe(1008);
      const e = await t.audited((x) => x.event === 'frame_rejected');
      expect(e.reason).toBe(reason);
    });
  }

  it('pre_hello: a non-hello first frame closes the connection', async () => {
    t = await startTestLane();
    const dev = await t.connect(undefined);
    dev.send({ t: 'heartbeat', gen: '1', seq: 0, inflight: [] });
    expect((await dev.closed).code).toBe(1008);
    expect((await t.audited((e) => e.event === 'frame_dropped')).reason).toBe('pre_hello');
  });
});

describe('§2.4 after the handshake: a malformed frame costs the frame, not the connection', () => {
  const cases: [string, (d: Awaited<ReturnType<TestLane['connect']>>) => void][] = [
    ['not_json', (d) => d.sendRaw('nope')],
    ['not_json', (d) => d.sendRaw(Buffer.from([1, 2, 3]), true)],
    ['not_object', (d) => d.sendRaw('42')],
    ['unknown_type', (d) => d.send({ t: 'instruction', gen: d.gen })],
    ['bad_shape', (d) => d.send({ t: 'heartbeat', gen: '07', seq: 0, inflight: [] })],
    [
      'bad_shape',
      (d) =>
        d.send({
          t: 'chunk',
          gen: d.gen,
          instructionId: 'ins_x',
          streamSeq: 0,
          kind: 'stdout',
          dataB64: 'aGk',
        }),
    ],
    ['bad_shape', (d) => d.send({ t: 'heartbeat', gen: d.gen, seq: 1.5, inflight: [] })],
  ];
  for (const [reason, act] of cases) {
    it(`${reason}: audited, dropped, the socket stays open`, async () => {
      t = await startTestLane();
      const { id, dev } = await t.online();
      act(dev);
      expect((await t.audited((e) => e.event === 'frame_rejected')).reason).toBe(reason);
      await barrier(t, dev, id.deviceId);
      expect(dev.closeInfo).toBeUndefined();
    });
  }

  it('stage 0: a text frame that is not UTF-8 is a transport error (1007) and the connection is dropped, also when laid out as a data chunk', async () => {
    const frames = (gen: string) => {
      const chunk = (id: string, b64: string) =>
        Buffer.concat([
          Buffer.from(`{"t":"chunk","gen":"${gen}","instructionId":"`),
          Buffer.from(id, 'latin1'),
          Buffer.from(`","streamSeq":0,"kind":"stdout","dataB64":"`),
          Buffer.from(b64, 'latin1'),
          Buffer.from('"}'),
        ]);
      return [
        Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0xff, 0x7d]), // {"t":\xff}
        chunk('ins_x', 'aGk\xe9'), // a latin1 byte inside the base64
        chunk('ins_\xc3', 'aGk='), // a truncated UTF-8 sequence in the id
        chunk('ins_x', Buffer.alloc(65536, 1).toString('base64') + '\x80'),
      ];
    };
    for (let k = 0; k < frames('1').length; k += 1) {
      t = await startTestLane();
      const { dev } = await t.online();
      dev.sendRaw(frames(dev.gen)[k] as Buffer);
      expect((await dev.closed).code, `frame ${k}`).toBe(1007);
      await t.stop();
      t = undefined;
    }
    t = await startTestLane();
    const id = await t.enroll();
    const early = await t.connect(id);
    early.sendRaw(frames('1')[0] as Buffer);
    expect((await early.closed).code).toBe(1007);
  });

  it('stage 0: a frame over 1 MiB is a transport error (1009) and the connection is dropped', async () => {
    t = await startTestLane();
    const { dev } = await t.online();
    dev.send({ t: 'heartbeat', gen: dev.gen, seq: 0, inflight: ['x'.repeat(1_048_576)] });
    expect((await dev.closed).code).toBe(1009);
  });
});

describe('§2.4 stage 2: admission', () => {
  it('pre_hello: an extra frame while the handshake is in flight is dropped and the handshake completes', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    const dev = await t.connect(id);
    const sock = (dev.ws as unknown as { _socket: { cork(): void; uncork(): void } })._socket;
    sock.cork();
    dev.send(dev.buildHello());
    dev.send({ t: 'heartbeat', gen: '1', seq: 0, inflight: [] });
    sock.uncork();
    expect((await dev.next(undefined, (f) => f.t === 'helloAck' || f.t === 'helloReject')).t).toBe(
      'helloAck',
    );
    const e = await t.audited((x) => x.event === 'frame_dropped');
    expect(e).toMatchObject({ reason: 'pre_hello', t: 'heartbeat' });
    expect(dev.closeInfo).toBeUndefined();
  });

  it('pre_hello: a second hello on an established connection is dropped, not a disconnect', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    dev.send(dev.buildHello());
    expect((await t.audited((e) => e.event === 'frame_dropped')).reason).toBe('pre_hello');
    await barrier(t, dev, id.deviceId);
    expect(dev.pending().filter((f) => f.t === 'helloAck' || f.t === 'helloReject')).toEqual([]);
  });

  it('generation_mismatch: a frame stamped with another gen is dropped with no ack', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    const h = t.lane.dispatch(id.deviceId, { kind: 'createDir', args: { path: '/a' } });
    await dev.next('instruction');
    dev.result(h.instructionId, VOID, 0, String(Number(dev.gen) + 1));
    expect((await t.audited((e) => e.event === 'frame_dropped')).reason).toBe(
      'generation_mismatch',
    );
    await barrier(t, dev, id.deviceId);
    expect(dev.pending().some((f) => f.t === 'resultAck')).toBe(false);
    expect(h.state()).toBe('dispatch_committed');
    dev.result(h.instructionId, VOID);
    expect(await h.outcome).toEqual(VOID);
  });

  it('unknown_instruction: a result for an id the lane never issued is dropped with no ack', async () => {
    t = await startTestLane();
    const { id, dev } = await t.online();
    dev.result('ins_01J8ZQ4T9X7M3K5N6P8R0S2V4W', VOID);
    expect((await t.audited((e) => e.event === 'frame_dropped')).reason).toBe(
      'unknown_instruction',
    );
    await barrier(t, dev, id.deviceId);
    expect(dev.pending().some((f) => f.t === 'resultAck')).toBe(false);
  });

  it('instruction_not_committed: a result for a still-queued instruction is dropped', async () => {
    t = await startTestLane({ maxInflight: 1 });
    const { id, dev } = await t.online();
    const first = t.lane.dispatch(id.deviceId, { kind: 'createDir', args: { path: '/a' } });
    const queued = t.lane.dispatch(id.deviceId, { kind: 'createDir', args: { path: '/b' } });
    await dev.next('instruction');
    expect(queued.state()).toBe('queued');
    dev.result(queued.instructionId, VOID);
    expect((await t.audited((e) => e.event === 'frame_dropped')).reason).toBe(
      'instruction_not_committed',
    );
    dev.result(first.instructionId, VOID);
    await dev.next('instruction', (f) => f.instructionId === queued.instructionId);
    expect(queued.state()).toBe('dispatch_committed');
  });

  it("device_mismatch: a device cannot answer another device's instruction", async () => {
    t = await startTestLane();
    const a = await t.online();
    const b = await t.online();
    const h = t.lane.dispatch(a.id.deviceId, { kind: 'exists', args: { path: '/x' } });
    await a.dev.next('instruction');
    b.dev.result(h.instructionId, EXISTS);
    expect((await t.audited((e) => e.event === 'frame_dropped')).reason).toBe('device_mismatch');
    a.dev.result(h.instructionId, { ...EXISTS, existsValue: false });
    expect(await h.outcome).toEqual({ ...EXISTS, existsValue: false });
  });

  it('settled memo: a late result gets a bare resultAck, a late chunk is ignored; aged out → unknown_instruction', async () => {
    t = await startTestLane({ settledMemoEntries: 2 });
    const { id, dev } = await t.online();
    const ids: string[] = [];
    for (const p of ['/1', '/2', '/3']) {
      const h = t.lane.dispatch(id.deviceId, { kind: 'exists', args: { path: p } });
      await dev.next('instruction');
      dev.result(h.instructionId, EXISTS);
      await dev.next('resultAck', (f) => f.instructionId === h.instructionId);
      await h.outcome;
      ids.push(h.instructionId);
    }
    // the newest is in the memo: bare ack, nothing changes
    dev.result(ids[2]!, { ok: false, errorCode: 'unknown', message: 'late' }, 1);
    await dev.next('resultAck', (f) => f.instructionId === ids[2]);
    dev.chunk(ids[2]!, 0, 'data', 'late');
    expect((await t.audited((e) => e.event === 'late_chunk_ignored')).instructionId).toBe(ids[2]);
    // the oldest has aged out of a 2-entry memo
    dev.result(ids[0]!, EXISTS);
    expect(
      await t.audited((e) => e.event === 'frame_dropped' && e.instructionId === ids[0]),
    ).toMatchObject({
      reason: 'unknown_instruction',
    });
    await barrier(t, dev, id.deviceId);
    expect(dev.pending().filter((f) => f.t === 'resultAck' || f.t === 'chunkAck')).toEqual([]);
  });
});
