// Web Push (spec "push", D4–D7): the whole leg relay → local fake push service → RFC 8291
// decryption in the test, plus the decision, the receipts, the store and the SSRF checks.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from '../testkit/push-service.ts';
import { newRoom, startFixture, type Fixture } from './test-support/relay-fixture.ts';
import type { TestClient } from './test-support/ws-client.ts';
import type { RelayOptions } from './server.ts';
import type { PushRequest } from './push-sender.ts';

let fx: Fixture | undefined;
let fake: FakePushService | undefined;
afterEach(async () => {
  await fx?.stop();
  await fake?.close();
  fx = fake = undefined;
});

const SUBJECT = 'mailto:relay-test@example.com';
const sealed = () => crypto.randomBytes(180).toString('base64');
const pushMsg = (room: string, payload: string, tag?: string) =>
  JSON.stringify({
    kind: 'msg',
    room,
    payload: 'bXNn',
    push: tag === undefined ? { payload } : { payload, tag },
  });

async function setup(o: RelayOptions = {}) {
  fake = await startFakePushService();
  fx = await startFixture({ vapidSubject: SUBJECT, unsafeAllowPushOrigins: [fake.origin], ...o });
  return { fx, fake };
}

/** A phone subscribes and leaves; returns the subscriber and a machine in the room. */
async function subscribedRoom(f: Fixture, endpoints: string[]) {
  const room = newRoom();
  const phone = await f.client();
  await phone.hello(room, 'phone');
  const subs = endpoints.map((e) => makeFakeSubscriber(e));
  for (const s of subs) phone.send({ kind: 'push-subscribe', room, subscription: s.subscription });
  await phone.hello(room, 'phone'); // a round trip: the relay has read every frame before it
  await f.relay.idle(); // …and has finished storing them
  await phone.expectNoFrame(0);
  await phone.close();
  const machine = await f.client();
  await machine.hello(room, 'machine');
  return { room, subs, machine };
}

describe('Web Push: the whole leg', () => {
  it('no phone socket ⇒ the sealed payload reaches the push service exactly as sent (D6), with TTL, Urgency high and Topic = tag', async () => {
    const { fx: f, fake: svc } = await setup({ pushTtlSec: 3600 });
    const { room, subs, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
    const payload = sealed();
    machine.send(pushMsg(room, payload, 'approval-7'));
    const req = await svc.nextRequest();
    expect(req.path).toBe('/push/a');
    expect(req.headers).toMatchObject({
      ttl: '3600',
      urgency: 'high',
      topic: 'approval-7',
      'content-encoding': 'aes128gcm',
    });
    expect(req.headers.authorization).toMatch(/^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=/);
    expect(req.headers.authorization).toContain(`k=${f.relay.vapidPublicKey}`);
    expect(subs[0]?.decrypt(req.body).toString('utf8')).toBe(payload);
    await f.relay.idle();
    await machine.expectNoFrame();
  });

  it.each([['has space'], ['x'.repeat(33)], ['ünïcode'], ['']])(
    'Push collapse: tag %j is not a Topic',
    async (tag) => {
      const { fx: f, fake: svc } = await setup();
      const { room, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
      machine.send(pushMsg(room, sealed(), tag));
      const req = await svc.nextRequest();
      expect(req.headers.topic).toBeUndefined();
    },
  );

  it('a connected phone socket ⇒ no push', async () => {
    const { fx: f, fake: svc } = await setup();
    const { room, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
    const phone = await f.client();
    await phone.hello(room, 'phone');
    await machine.nextFrame('presence');
    machine.send(pushMsg(room, sealed(), 't'));
    expect(await phone.nextFrame('msg')).toEqual({ kind: 'msg', room, payload: 'bXNn' });
    await f.relay.idle();
    expect(svc.received()).toBe(0);
    await machine.expectNoFrame();
  });

  it('D5: a phone silent for more than 1.5 × the ping interval counts as absent', async () => {
    // One slice (P10): the silent phone's first ping comes at 20 s, so it is still connected at
    // 30 s (with slices it could be pinged at once and terminated at 20 s, before the rule shows).
    const { fx: f, fake: svc } = await setup({ pingIntervalMs: 20_000, pingSlices: 1 });
    const { room, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
    const phone: TestClient = await f.client({ autoPong: false });
    await phone.hello(room, 'phone');
    await machine.nextFrame('presence');
    f.timers.advance(30_000); // exactly 1.5 × 20 s: still present
    machine.send(pushMsg(room, sealed(), 't'));
    await phone.nextFrame('msg');
    await f.relay.idle();
    expect(svc.received()).toBe(0);
    f.timers.advance(1);
    machine.send(pushMsg(room, sealed(), 't'));
    await phone.nextFrame('msg'); // still forwarded to the silent socket
    await svc.nextRequest();
  });
});

describe('Push delivery receipts to the machine', () => {
  it('push-disabled when no VAPID subject is configured', async () => {
    const { fx: f, fake: svc } = await setup({ vapidSubject: undefined });
    const { room, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-disabled' });
  });

  it('push-no-subscribers when the room has none', async () => {
    const { fx: f } = await setup();
    const room = newRoom();
    const machine = await f.client();
    await machine.hello(room, 'machine');
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-no-subscribers' });
  });

  it('push-failed carries the count and each reason; 429, 413 and 5xx keep the subscription (D7)', async () => {
    const { fx: f, fake: svc } = await setup();
    const { room, machine } = await subscribedRoom(f, [
      svc.endpoint('a'),
      svc.endpoint('b'),
      svc.endpoint('c'),
      svc.endpoint('d'),
    ]);
    svc.respondWith(500, 429, 413, 201);
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toEqual({
      kind: 'error',
      code: 'push-failed',
      message: 'push failed for 3 of 4 subscriptions (HTTP 413: 1, HTTP 429: 1, HTTP 500: 1)',
    });
    machine.send(pushMsg(room, sealed()));
    for (let i = 0; i < 4; i++) await svc.nextRequest();
    await f.relay.idle();
    await machine.expectNoFrame();
  });

  it('D7: only 404 and 410 delete a subscription', async () => {
    const { fx: f, fake: svc } = await setup();
    const { room, machine } = await subscribedRoom(f, [svc.endpoint('a'), svc.endpoint('b')]);
    svc.respondWith(404, 410);
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toMatchObject({
      code: 'push-failed',
      message: 'push failed for 2 of 2 subscriptions (HTTP 404: 1, HTTP 410: 1)',
    });
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-no-subscribers' });
  });

  it('push-unsubscribe removes the subscription', async () => {
    const { fx: f, fake: svc } = await setup();
    const room = newRoom();
    const phone = await f.client();
    await phone.hello(room, 'phone');
    const s = makeFakeSubscriber(svc.endpoint('a'));
    phone.send({ kind: 'push-subscribe', room, subscription: s.subscription });
    phone.send({ kind: 'push-unsubscribe', room, endpoint: s.subscription.endpoint });
    await phone.hello(room, 'phone');
    await f.relay.idle();
    await phone.close();
    const machine = await f.client();
    await machine.hello(room, 'machine');
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-no-subscribers' });
  });
});

describe('D3: push caps per room', () => {
  it('2 subscriptions are stored, a 3rd endpoint gets limit; refreshing a stored one does not count', async () => {
    const { fx: f, fake: svc } = await setup({ maxSubscriptionsPerRoom: 2 });
    const room = newRoom();
    const phone = await f.client();
    await phone.hello(room, 'phone');
    const [a, b, c] = ['a', 'b', 'c'].map((id) => makeFakeSubscriber(svc.endpoint(id)));
    for (const s of [a, b, a])
      phone.send({ kind: 'push-subscribe', room, subscription: s?.subscription });
    await f.relay.idle();
    await phone.expectNoFrame(0);
    phone.send({ kind: 'push-subscribe', room, subscription: c?.subscription });
    expect(await phone.nextFrame('error')).toMatchObject({ code: 'limit' });
  });

  it('a burst of 2 pushes is sent, the 3rd gets limit; one more is allowed after 60/rate seconds', async () => {
    const { fx: f, fake: svc } = await setup({ pushRatePerMin: 10, pushBurst: 2 });
    const { room, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
    machine.send(pushMsg(room, sealed()));
    machine.send(pushMsg(room, sealed()));
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'limit' });
    f.timers.advance(6_000);
    machine.send(pushMsg(room, sealed()));
    for (let i = 0; i < 3; i++) await svc.nextRequest();
    await f.relay.idle();
    await machine.expectNoFrame();
  });

  it('--no-rate-limits turns the push rate limit off', async () => {
    const { fx: f, fake: svc } = await setup({
      pushRatePerMin: 1,
      pushBurst: 1,
      rateLimits: false,
    });
    const { room, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
    for (let i = 0; i < 5; i++) machine.send(pushMsg(room, sealed()));
    for (let i = 0; i < 5; i++) await svc.nextRequest();
  });
});

describe('D4: push-subscribe cannot make the relay reach inside (SSRF)', () => {
  const p256dh = makeFakeSubscriber('x').subscription.keys.p256dh;
  const auth = crypto.randomBytes(16).toString('base64url');
  const dns: Record<string, string[]> = {
    'push.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
    'localhost.example.com': ['127.0.0.1'],
    'intranet.example.com': ['93.184.216.34', '10.1.2.3'],
    'v6-ula.example.com': ['fd00::1'],
    'link-local.example.com': ['169.254.169.254'],
  };
  const resolve = async (host: string) => {
    const a = dns[host];
    if (!a) throw new Error('ENOTFOUND');
    return a;
  };

  it.each([
    ['http (not https)', { endpoint: 'http://push.example.com/x', keys: { p256dh, auth } }],
    ['an IPv4 literal', { endpoint: 'https://93.184.216.34/x', keys: { p256dh, auth } }],
    ['an IPv6 literal', { endpoint: 'https://[::1]/x', keys: { p256dh, auth } }],
    [
      'a host resolving to loopback',
      { endpoint: 'https://localhost.example.com/x', keys: { p256dh, auth } },
    ],
    [
      'a host with one private address',
      { endpoint: 'https://intranet.example.com/x', keys: { p256dh, auth } },
    ],
    [
      'a host resolving to a unique-local address',
      { endpoint: 'https://v6-ula.example.com/x', keys: { p256dh, auth } },
    ],
    [
      'a host resolving to link-local (cloud metadata)',
      { endpoint: 'https://link-local.example.com/x', keys: { p256dh, auth } },
    ],
    [
      'a host that does not resolve',
      { endpoint: 'https://nowhere.example.com/x', keys: { p256dh, auth } },
    ],
    [
      'credentials in the URL',
      { endpoint: 'https://u:p@push.example.com/x', keys: { p256dh, auth } },
    ],
    [
      'an endpoint over 1 KiB',
      { endpoint: `https://push.example.com/${'x'.repeat(1_000)}`, keys: { p256dh, auth } },
    ],
    ['not a URL', { endpoint: 'push.example.com', keys: { p256dh, auth } }],
    [
      'p256dh of 64 bytes',
      {
        endpoint: 'https://push.example.com/x',
        keys: { p256dh: crypto.randomBytes(64).toString('base64url'), auth },
      },
    ],
    [
      'auth of 15 bytes',
      {
        endpoint: 'https://push.example.com/x',
        keys: { p256dh, auth: crypto.randomBytes(15).toString('base64url') },
      },
    ],
    [
      'auth not base64url',
      { endpoint: 'https://push.example.com/x', keys: { p256dh, auth: 'a+b/c'.repeat(5) } },
    ],
  ])('%s gets bad-frame and is not stored', async (_n, subscription) => {
    const sent: PushRequest[] = [];
    const f = (fx = await startFixture({
      vapidSubject: SUBJECT,
      resolve,
      pushSender: async (r) => (sent.push(r), { statusCode: 201 }),
    }));
    const room = newRoom();
    const phone = await f.client();
    await phone.hello(room, 'phone');
    phone.send({ kind: 'push-subscribe', room, subscription });
    expect(await phone.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
    await phone.close();
    const machine = await f.client();
    await machine.hello(room, 'machine');
    machine.send(pushMsg(room, sealed()));
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-no-subscribers' });
    expect(sent).toEqual([]);
  });

  it('a public https host is accepted and used', async () => {
    let sent: (r: PushRequest) => void = () => undefined;
    const pushed = new Promise<PushRequest>((r) => (sent = r));
    const f = (fx = await startFixture({
      vapidSubject: SUBJECT,
      resolve,
      pushSender: async (r) => (sent(r), { statusCode: 201 }),
    }));
    const { room, machine } = await subscribedRoom(f, []);
    await machine.close();
    const phone = await f.client();
    await phone.hello(room, 'phone');
    phone.send({
      kind: 'push-subscribe',
      room,
      subscription: { endpoint: 'https://push.example.com/x', keys: { p256dh, auth } },
    });
    await phone.hello(room, 'phone');
    await f.relay.idle();
    await phone.close();
    const m2 = await f.client();
    await m2.hello(room, 'machine');
    m2.send(pushMsg(room, sealed()));
    expect((await pushed).endpoint).toBe('https://push.example.com/x');
    await m2.expectNoFrame();
  });

  it('the default (no --unsafe-allow-push-origin) refuses a loopback http fake service', async () => {
    fake = await startFakePushService();
    const f = (fx = await startFixture({ vapidSubject: SUBJECT }));
    const phone = await f.client();
    const room = newRoom();
    await phone.hello(room, 'phone');
    phone.send({
      kind: 'push-subscribe',
      room,
      subscription: makeFakeSubscriber(fake.endpoint('a')).subscription,
    });
    expect(await phone.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
  });
});

describe('D7: keys and subscriptions survive a restart; files are owner-only', () => {
  it('the VAPID public key never changes and stored subscriptions keep working', async () => {
    const { fx: f, fake: svc } = await setup();
    const { room, subs } = await subscribedRoom(f, [svc.endpoint('a')]);
    const key = f.relay.vapidPublicKey;
    const dir = f.dataDir;
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of fs.readdirSync(dir)) {
      expect([file, fs.statSync(path.join(dir, file)).mode & 0o777]).toEqual([file, 0o600]);
    }
    await f.relay.close();
    const again = await startFixture({
      dataDir: dir,
      vapidSubject: SUBJECT,
      unsafeAllowPushOrigins: [svc.origin],
    });
    try {
      expect(again.relay.vapidPublicKey).toBe(key);
      const machine = await again.client();
      await machine.hello(room, 'machine');
      const payload = sealed();
      machine.send(pushMsg(room, payload));
      expect(subs[0]?.decrypt((await svc.nextRequest()).body).toString()).toBe(payload);
    } finally {
      await again.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a subscription not refreshed for 60 days expires', async () => {
    const { fx: f, fake: svc } = await setup({ pingIntervalMs: 86_400_000 });
    const { room, machine } = await subscribedRoom(f, [svc.endpoint('a')]);
    await machine.close();
    f.timers.advance(60 * 86_400_000);
    const m1 = await f.client();
    await m1.hello(room, 'machine');
    m1.send(pushMsg(room, sealed()));
    await svc.nextRequest();
    await m1.close();
    f.timers.advance(86_400_000);
    const m2 = await f.client();
    await m2.hello(room, 'machine');
    m2.send(pushMsg(room, sealed()));
    expect(await m2.nextFrame('error')).toMatchObject({ code: 'push-no-subscribers' });
  });
});
