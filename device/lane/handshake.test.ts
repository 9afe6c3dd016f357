import { afterEach, describe, expect, it } from 'vitest';
import { decodeUlid16, mintEpoch, signHello } from '../wire/index.ts';
import { startTestLane, type TestLane } from '../test-support/lane-fixture.ts';

let t: TestLane;
afterEach(async () => t?.stop());

describe('§1.2–1.5 connecting and the handshake', () => {
  it('§1.2: the server sends challenge { nonce, protocolVersion } immediately on open', async () => {
    t = await startTestLane();
    const dev = await t.connect(undefined);
    expect(dev.challenge.protocolVersion).toBe(1);
    expect(dev.challenge.nonce.length).toBeGreaterThanOrEqual(16);
  });

  it('§1.2: the upgrade is refused 404 on any other path', async () => {
    t = await startTestLane();
    await expect(t.connect.call(null, undefined).then(() => 'ok')).resolves.toBe('ok');
    const { connectTestDevice } = await import('../test-support/test-device.ts');
    await expect(
      connectTestDevice(t.lane.url.replace('http', 'ws') + '/v1/other', undefined),
    ).rejects.toThrow(/404/);
  });

  it('§1.2: the handshake deadline closes a socket that never completes the handshake', async () => {
    t = await startTestLane({ handshakeDeadlineMs: 60 });
    const dev = await t.connect(undefined);
    const closed = await dev.closed;
    expect(closed.code).toBe(1008);
    await t.audited((e) => e.event === 'handshake_timeout');
  });

  it('§1.3/§1.5: a correctly signed hello gets helloAck with gen as a canonical string', async () => {
    t = await startTestLane({ heartbeatIntervalMs: 1234, maxInflight: 3 });
    const id = await t.enroll();
    const dev = await t.connect(id);
    const ack = await dev.hello();
    expect(ack).toEqual({
      t: 'helloAck',
      ok: true,
      heartbeatIntervalMs: 1234,
      maxInflight: 3,
      gen: '1',
      pendingInstructions: [],
      chunkWatermarks: {},
    });
    await dev.close();
    const dev2 = await t.connect(id);
    const ack2 = await dev2.hello();
    expect(ack2.t === 'helloAck' && ack2.gen).toBe('2');
  });

  it('§1.4 auth_failed: unknown device, malformed id, malformed epoch and a bad signature are indistinguishable', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    const cases: [string, (d: Awaited<ReturnType<TestLane['connect']>>) => object][] = [
      ['unknown device', (d) => d.buildHello({ deviceId: 'dev_01J8ZQ4T9X0000000000000000' })],
      ['malformed id', (d) => d.buildHello({ deviceId: 'not-a-device' })],
      ['malformed epoch', (d) => ({ ...d.buildHello(), epoch: mintEpoch().toLowerCase() })],
      ['bad signature', (d) => d.buildHello({}, { nonce: 'some other nonce' })],
      ['signature not base64', (d) => d.buildHello({ signatureB64: 'nope' })],
    ];
    for (const [why, build] of cases) {
      const dev = await t.connect(id);
      dev.send(build(dev));
      const f = await dev.next('helloReject');
      expect(f, why).toEqual({ t: 'helloReject', code: 'auth_failed' });
      await dev.closed;
    }
  });

  it("§1.3: the nonce is one-time and socket-scoped: a signature over another socket's nonce fails", async () => {
    t = await startTestLane();
    const id = await t.enroll();
    const a = await t.connect(id);
    const b = await t.connect(id);
    const forB = a.buildHello({}, { nonce: b.challenge.nonce });
    a.send(forB);
    expect(await a.next('helloReject')).toEqual({ t: 'helloReject', code: 'auth_failed' });
    // The same signature replayed on b is still valid for b's nonce only once, and b accepts it.
    b.send({ ...forB });
    expect((await b.next(undefined, (f) => f.t === 'helloAck' || f.t === 'helloReject')).t).toBe(
      'helloAck',
    );
  });

  it('§1.4 protocol_version_unsupported carries minProtocolVersion', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    const dev = await t.connect(id);
    const f = await dev.hello({ protocolVersion: 2 });
    expect(f).toEqual({
      t: 'helloReject',
      code: 'protocol_version_unsupported',
      minProtocolVersion: 1,
    });
    await dev.closed;
  });

  it('§1.4 revoked: a revoked device is refused, after its signature verified', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    expect(t.lane.revoke(id.deviceId)).toBe(true);
    const dev = await t.connect(id);
    expect(await dev.hello()).toEqual({ t: 'helloReject', code: 'revoked' });
    const dev2 = await t.connect(id);
    expect(
      await dev2.hello({
        signatureB64: signHello(id.privateKey, {
          nonce: 'x',
          deviceId: id.deviceId,
          epoch: dev2.epoch,
          protocolVersion: 1,
        }),
      }),
    ).toEqual({
      t: 'helloReject',
      code: 'auth_failed',
    });
  });

  it('§1.4 draining: a hello on a socket opened before drain() is refused draining; new upgrades get 503', async () => {
    t = await startTestLane();
    const id = await t.enroll();
    const dev = await t.connect(id);
    const drained = t.lane.drain();
    expect(await dev.hello()).toEqual({ t: 'helloReject', code: 'draining' });
    await drained;
    await expect(t.connect(id)).rejects.toThrow(/503/);
  });

  it('§1.2: the upgrade is refused 503 when the pre-auth connection cap is full', async () => {
    t = await startTestLane({ maxPreAuthConnections: 1 });
    const first = await t.connect(undefined);
    await expect(t.connect(undefined)).rejects.toThrow(/503/);
    await first.close();
    await t.audited((e) => e.event === 'upgrade_refused');
  });

  it('§1.3 epoch: the ULID decodes strictly (sanity of the test device)', () => {
    expect(decodeUlid16(mintEpoch())).not.toBeNull();
  });
});

describe('§1.2 pre-auth caps per client address', () => {
  it('the upgrade is refused 503 when one address holds its share of unauthenticated sockets; freed after the handshake', async () => {
    t = await startTestLane({ maxPreAuthPerAddress: 1 });
    const id = await t.enroll();
    const first = await t.connect(id);
    await expect(t.connect(undefined)).rejects.toThrow(/503/);
    await first.handshake();
    const second = await t.connect(undefined);
    expect(second.challenge.t).toBe('challenge');
  });
});
