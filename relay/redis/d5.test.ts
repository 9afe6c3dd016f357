// RS4: D5 ("a phone silent for 1.5 × the ping interval counts as absent") decided globally.
// Each replica publishes how many of its phones are live and re-counts them on a sweep of its own
// (injected) clock; another replica's push decision reads those counts. Ordering without sleeps:
// a frame that replica B publishes after its count reaches replica A after that count (one
// command connection per replica, one subscriber connection per replica), so a frame from B to
// a socket on A, in a second room, proves that A has heard B's count.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type RunningRelay } from '../server.ts';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from '../../testkit/push-service.ts';
import { makeLogCapture } from '../test-support/log-capture.ts';
import { makeManualTimers, type ManualTimers } from '../../testkit/manual-clock.ts';
import { newRoom } from '../test-support/relay-fixture.ts';
import { startRedis, type TestRedis } from '../test-support/redis-server.ts';
import { connectClient, type TestClient } from '../test-support/ws-client.ts';

const PING_MS = 20_000;
const SWEEP_MS = 1_000; // min(1 s, ping / 4): how often a replica re-counts its live phones
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

async function replica(timers: ManualTimers): Promise<RunningRelay> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-redis-d5-'));
  dirs.push(dataDir);
  const r = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    timers,
    pingIntervalMs: PING_MS,
    // One slice (P10): a silent phone's first ping comes one interval in, so it is still
    // connected when the 1.5 × rule shows.
    pingSlices: 1,
    redis: redis.url,
    redisHeartbeatMs: 200,
    vapidSubject: 'mailto:relay-test@example.com',
    unsafeAllowPushOrigins: [fake.origin],
    logDestination: makeLogCapture(),
  });
  relays.push(r);
  return r;
}
async function client(u: string, autoPong = true): Promise<TestClient> {
  const c = await connectClient(u, { autoPong });
  clients.push(c);
  return c;
}
const pushMsg = (room: string, payload: string) =>
  JSON.stringify({ kind: 'msg', room, payload: 'bXNn', push: { payload } });
const msg = (room: string) => `{"kind":"msg","room":"${room}","payload":"c3luYw=="}`;

describe('RS4: D5 across replicas', () => {
  it('D5: a phone on B silent for more than 1.5 × the ping interval counts as absent for a push from A, and live again once it speaks', async () => {
    const [ta, tb] = [makeManualTimers(), makeManualTimers()];
    const [a, b] = [await replica(ta), await replica(tb)];
    const room = newRoom();
    const phone = await client(b.url, false); // a suspended phone: no pongs
    await phone.hello(room, 'phone');
    const sub = makeFakeSubscriber(fake.endpoint(`d5-${room}`));
    phone.send({ kind: 'push-subscribe', room, subscription: sub.subscription });
    await phone.hello(room, 'phone'); // B has read the subscribe…
    await b.idle(); // …and stored it; the phone last spoke now (B's clock)
    const machine = await client(a.url);
    await machine.hello(room, 'machine');
    await phone.nextFrame('presence');
    // The sync pair: a machine on B, a phone on A, in another room.
    const sync = newRoom();
    const syncPhone = await client(a.url);
    await syncPhone.hello(sync, 'phone');
    const syncMachine = await client(b.url);
    await syncMachine.hello(sync, 'machine');
    await syncPhone.nextFrame('presence');
    const heardByA = async () => {
      syncMachine.send(msg(sync));
      expect(await syncPhone.nextRaw()).toBe(msg(sync));
    };

    tb.advance(1.5 * PING_MS); // exactly 1.5 × the ping interval: still live
    await heardByA();
    const before = fake.received();
    machine.send(pushMsg(room, 'UFVTSDE='));
    await phone.nextFrame('msg');
    await a.idle();
    expect(fake.received()).toBe(before);
    await machine.expectNoFrame(); // no push-no-subscribers either: A did not push at all

    tb.advance(SWEEP_MS); // silent for longer: B's next sweep announces 0 live phones
    await heardByA();
    machine.send(pushMsg(room, 'UFVTSDI='));
    expect(JSON.parse(await phone.nextRaw())).toEqual({ kind: 'msg', room, payload: 'bXNn' });
    const req = await fake.nextRequest(); // still forwarded to the silent socket, and pushed
    expect(req.path).toBe(`/push/d5-${room}`);
    expect(sub.decrypt(req.body).toString('utf8')).toBe('UFVTSDI=');
    await a.idle();

    await phone.hello(room, 'phone'); // the D5 probe of a phone coming back
    tb.advance(SWEEP_MS);
    await heardByA();
    const after = fake.received();
    machine.send(pushMsg(room, 'UFVTSDM='));
    await phone.nextFrame('msg');
    await a.idle();
    expect(fake.received()).toBe(after);
    await machine.expectNoFrame();
  });
});
