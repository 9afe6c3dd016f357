// RS4: Web Push with --redis. The decision "no phone socket in the room" is
// global, a subscription stored through one replica is used by another, and every replica (and
// every restart) signs with the one VAPID key pair created first.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type RelayOptions, type RunningRelay } from '../server.ts';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from '../../testkit/push-service.ts';
import { makeLogCapture } from '../test-support/log-capture.ts';
import { newRoom } from '../test-support/relay-fixture.ts';
import { startRedis, type TestRedis } from '../test-support/redis-server.ts';
import { connectClient, type TestClient } from '../test-support/ws-client.ts';

const SUBJECT = 'mailto:relay-test@example.com';
let redis: TestRedis;
let fake: FakePushService;
const relays: RunningRelay[] = [];
const clients: TestClient[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  [redis, fake] = await Promise.all([startRedis(), startFakePushService()]);
});
afterAll(async () => {
  await Promise.all([redis.stop(), fake.close()]);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(relays.splice(0).map((r) => r.close()));
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function replica(o: RelayOptions = {}): Promise<RunningRelay> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-redis-push-'));
  dirs.push(dataDir);
  const r = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    redis: redis.url,
    redisHeartbeatMs: 200,
    vapidSubject: SUBJECT,
    unsafeAllowPushOrigins: [fake.origin],
    logDestination: makeLogCapture(),
    ...o,
  });
  relays.push(r);
  return r;
}
async function client(u: string): Promise<TestClient> {
  const c = await connectClient(u);
  clients.push(c);
  return c;
}
const pushMsg = (room: string, payload: string) =>
  JSON.stringify({ kind: 'msg', room, payload: 'bXNn', push: { payload } });

describe('RS4: push with --redis', () => {
  it('the decision is global: a phone on B means no push from A; once it leaves, A pushes to the subscription stored through B', async () => {
    const [a, b] = [await replica(), await replica()];
    const room = newRoom();
    const phone = await client(b.url);
    await phone.hello(room, 'phone');
    const sub = makeFakeSubscriber(fake.endpoint(`global-${room}`));
    phone.send({ kind: 'push-subscribe', room, subscription: sub.subscription });
    await phone.hello(room, 'phone'); // a round trip: B has read the subscribe…
    await b.idle(); // …and stored it in Redis
    const machine = await client(a.url);
    await machine.hello(room, 'machine');
    expect(await phone.nextFrame('presence')).toMatchObject({ role: 'machine', online: true });

    const before = fake.received();
    machine.send(pushMsg(room, 'UFVTSDE='));
    expect(JSON.parse(await phone.nextRaw())).toEqual({ kind: 'msg', room, payload: 'bXNn' });
    await a.idle();
    await machine.expectNoFrame(); // not push-no-subscribers: A did not think the room empty
    expect(fake.received()).toBe(before);

    await phone.close();
    expect(await machine.nextFrame('presence')).toMatchObject({ role: 'phone', online: false });
    machine.send(pushMsg(room, 'UFVTSDI='));
    const req = await fake.nextRequest();
    expect(req.path).toBe(`/push/global-${room}`);
    expect(req.headers.authorization).toContain(`k=${a.vapidPublicKey}`);
    expect(sub.decrypt(req.body).toString('utf8')).toBe('UFVTSDI=');
    await a.idle();
    await machine.expectNoFrame();
  });

  it('push-unsubscribe through A removes the subscription for B (push-no-subscribers)', async () => {
    const [a, b] = [await replica(), await replica()];
    const room = newRoom();
    const phone = await client(a.url);
    await phone.hello(room, 'phone');
    const sub = makeFakeSubscriber(fake.endpoint(`gone-${room}`));
    phone.send({ kind: 'push-subscribe', room, subscription: sub.subscription });
    phone.send({ kind: 'push-unsubscribe', room, endpoint: sub.subscription.endpoint });
    await phone.hello(room, 'phone');
    await a.idle();
    await phone.close();
    const machine = await client(b.url);
    await machine.hello(room, 'machine');
    machine.send(pushMsg(room, 'UFVTSA=='));
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-no-subscribers' });
  });

  it('the subscription cap per room is global: the 3rd endpoint through B is refused when A stored 2', async () => {
    const [a, b] = [
      await replica({ maxSubscriptionsPerRoom: 2 }),
      await replica({ maxSubscriptionsPerRoom: 2 }),
    ];
    const room = newRoom();
    const pa = await client(a.url);
    await pa.hello(room, 'phone');
    for (const id of ['c1', 'c2'])
      pa.send({
        kind: 'push-subscribe',
        room,
        subscription: makeFakeSubscriber(fake.endpoint(`${id}-${room}`)).subscription,
      });
    await pa.hello(room, 'phone');
    await a.idle();
    const pb = await client(b.url);
    await pb.hello(room, 'phone');
    pb.send({
      kind: 'push-subscribe',
      room,
      subscription: makeFakeSubscriber(fake.endpoint(`c3-${room}`)).subscription,
    });
    expect(await pb.nextFrame('error')).toMatchObject({ code: 'limit' });
  });

  it('D7 across replicas: every replica has the same VAPID public key, and a restarted one keeps it', async () => {
    const a = await replica();
    const b = await replica();
    expect(b.vapidPublicKey).toBe(a.vapidPublicKey);
    const res = await fetch(`http://127.0.0.1:${b.port}/vapid`);
    expect(await res.json()).toEqual({ publicKey: a.vapidPublicKey });
    await a.close();
    await b.close();
    const c = await replica();
    expect(c.vapidPublicKey).toBe(a.vapidPublicKey);
  });
});
