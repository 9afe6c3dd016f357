// H1: the push leg under abuse — a relay-wide cap on requests in flight with a bounded queue, a
// push rate per machine IP over all its rooms, a total deadline per request (a trickling push
// service cannot hold one), and one VAPID header per audience until shortly before it expires.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { makeFakeSubscriber, type FakePushService } from '../testkit/push-service.ts';
import { PUSH_SUBJECT, pushFixtures } from './test-support/push-fixture.ts';
import { newRoom, type Fixture } from './test-support/relay-fixture.ts';
import { VAPID_JWT_RENEW_BEFORE_SEC, VAPID_JWT_VALIDITY_SEC } from './vapid-jwt.ts';

const setup = pushFixtures();
const pushMsg = (room: string) =>
  JSON.stringify({
    kind: 'msg',
    room,
    payload: 'bXNn',
    push: { payload: crypto.randomBytes(120).toString('base64') },
  });

/** Stores `n` subscriptions in a fresh room through a phone that then leaves. */
async function room(f: Fixture, svc: FakePushService, n: number, headers = {}) {
  const id = newRoom();
  const phone = await f.client({ headers });
  await phone.hello(id, 'phone');
  for (let i = 0; i < n; i++) {
    const sub = makeFakeSubscriber(svc.endpoint(`${id}-${i}`)).subscription;
    phone.send({ kind: 'push-subscribe', room: id, subscription: sub });
  }
  await phone.hello(id, 'phone');
  await f.relay.idle();
  await phone.expectNoFrame(0);
  await phone.close();
  return id;
}

describe('H1: a relay-wide cap on push requests in flight, with a bounded queue', () => {
  it('2 in flight and 3 waiting are all delivered; one request more is refused with push-failed (queue full), across rooms', async () => {
    const { f, svc } = await setup({ maxConcurrentPushes: 2, maxQueuedPushes: 3 });
    const [a, b, c] = [await room(f, svc, 3), await room(f, svc, 2), await room(f, svc, 1)];
    const machine = await f.client();
    for (const r of [a, b, c]) await machine.hello(r, 'machine');

    // N: 3 + 2 requests = 2 in flight + 3 waiting.
    svc.setMode({ kind: 'hold' });
    machine.send(pushMsg(a));
    machine.send(pushMsg(b));
    await svc.held(2);
    await machine.expectNoFrame(100); // the other 3 wait in the relay, not at the service
    expect(svc.inFlight()).toBe(2);
    // N + 1: one more request finds the queue full, and is answered at once.
    machine.send(pushMsg(c));
    expect(await machine.nextFrame('error')).toEqual({
      kind: 'error',
      code: 'push-failed',
      message: 'push failed for 1 of 1 subscriptions (relay push queue full: 1)',
    });
    svc.release();
    await f.relay.idle();
    await machine.expectNoFrame();
    expect([svc.received(), svc.maxInFlight()]).toEqual([5, 2]);
    expect(f.logs.text()).toContain('push queue full; requests refused');
  });
});

describe('H1: push rate per machine IP, over all its rooms', () => {
  it('a burst of 3 over two rooms is sent, the 4th gets limit; another IP is not affected; a token returns after 60/rate s', async () => {
    const { f, svc } = await setup({
      trustProxy: true,
      pushBurstPerIp: 3,
      pushRatePerMinPerIp: 6,
    });
    const ip = { 'x-forwarded-for': '203.0.113.41' };
    const [a, b] = [await room(f, svc, 1, ip), await room(f, svc, 1, ip)];
    const machine = await f.client({ headers: ip });
    await machine.hello(a, 'machine');
    await machine.hello(b, 'machine');
    for (const r of [a, a, b]) machine.send(pushMsg(r));
    for (let i = 0; i < 3; i++) await svc.nextRequest();
    machine.send(pushMsg(b));
    expect(await machine.nextFrame('error')).toEqual({
      kind: 'error',
      code: 'limit',
      message: 'push rate limit: 6 per minute per IP',
    });
    const other = await f.client({ headers: { 'x-forwarded-for': '203.0.113.42' } });
    await other.hello(b, 'machine');
    other.send(pushMsg(b));
    await svc.nextRequest();
    await f.relay.idle(); // every push answered before the clock moves
    f.timers.advance(10_000);
    machine.send(pushMsg(b));
    await svc.nextRequest();
    await f.relay.idle();
    await machine.expectNoFrame();
    await other.expectNoFrame(0);
  });
});

describe('H1: a total deadline per push request, not an idle timeout', () => {
  it('a push service trickling one byte every 500 ms gets push-failed at the 2 s deadline', async () => {
    const { f, svc } = await setup({ pushTimeoutMs: 2_000 });
    const r = await room(f, svc, 1);
    const machine = await f.client();
    await machine.hello(r, 'machine');
    svc.setMode({ kind: 'trickle', everyMs: 500 });
    machine.send(pushMsg(r));
    await svc.trickled(2); // the request is out and the answer is trickling in
    f.timers.advance(1_999);
    await machine.expectNoFrame(50);
    f.timers.advance(1);
    expect(await machine.nextFrame('error')).toEqual({
      kind: 'error',
      code: 'push-failed',
      message: 'push failed for 1 of 1 subscriptions (no answer within 2000 ms: 1)',
    });
    await f.relay.idle();
    await svc.drained(); // the relay closed the socket: the trickle stops
  });
});

type Jwt = { header: string; payload: { aud: string; exp: number; sub: string } };
function readJwt(authorization: string | undefined, publicKey: string): Jwt {
  const m = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  if (!m) throw new Error(`not a VAPID header: ${authorization}`);
  const [, h, p, sig, k] = m as unknown as [string, string, string, string, string];
  expect(k).toBe(publicKey);
  const point = Buffer.from(publicKey, 'base64url');
  const key = crypto.createPublicKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
  });
  const signed = Buffer.from(`${h}.${p}`);
  const signature = Buffer.from(sig, 'base64url');
  expect(crypto.verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);
  return {
    header: authorization as string,
    payload: JSON.parse(Buffer.from(p, 'base64url').toString()),
  };
}

describe('H1: the VAPID header is signed once per audience and reused until shortly before it expires', () => {
  it('every request to one push service within 11 h carries the same valid JWT; then a new one', async () => {
    // No ping while the clock moves by hours: the sockets would miss their pongs.
    const { f, svc } = await setup({ pingIntervalMs: 86_400_000 });
    const r = await room(f, svc, 2);
    const start = f.timers.now();
    const push = async () => {
      const machine = await f.client();
      await machine.hello(r, 'machine');
      machine.send(pushMsg(r));
      const reqs = [await svc.nextRequest(), await svc.nextRequest()];
      await f.relay.idle();
      await machine.close();
      return reqs.map((q) => readJwt(q.headers.authorization, f.relay.vapidPublicKey));
    };
    const [first, second] = await push();
    expect(second?.header).toBe(first?.header);
    expect(first?.payload).toEqual({
      aud: svc.origin,
      sub: PUSH_SUBJECT,
      exp: Math.floor(start / 1_000) + VAPID_JWT_VALIDITY_SEC,
    });
    const reuseMs = (VAPID_JWT_VALIDITY_SEC - VAPID_JWT_RENEW_BEFORE_SEC) * 1_000;
    f.timers.advance(reuseMs - (start % 1_000) - 1);
    expect((await push()).map((j) => j.header)).toEqual([first?.header, first?.header]);
    f.timers.advance(1);
    const renewed = await push();
    expect(renewed[0]?.header).not.toBe(first?.header);
    expect(renewed[1]?.header).toBe(renewed[0]?.header);
    expect(renewed[0]?.payload.exp).toBe(
      Math.floor(f.timers.now() / 1_000) + VAPID_JWT_VALIDITY_SEC,
    );
  });
});
