// RS2, RS3: several relays sharing one real redis-server behave, to a phone and a
// machine, like one relay — fan-out both ways verbatim, and the spec's presence semantics
// across replicas, including a replica killed with SIGKILL.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startRelay, type RunningRelay } from '../server.ts';
import { makeLogCapture } from '../test-support/log-capture.ts';
import { newRoom } from '../test-support/relay-fixture.ts';
import { startRedis, type TestRedis } from '../test-support/redis-server.ts';
import { killReplica, startReplicaProcess } from '../test-support/replica-process.ts';
import { connectClient, type TestClient } from '../test-support/ws-client.ts';

const HEARTBEAT_MS = 150;

let redis: TestRedis;
const relays: RunningRelay[] = [];
const clients: TestClient[] = [];
const children: ChildProcess[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(relays.splice(0).map((r) => r.close()));
  for (const c of children.splice(0)) killReplica(c);
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-redis-test-'));
  dirs.push(d);
  return d;
};

async function replica(): Promise<RunningRelay> {
  const r = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir: tmp(),
    redis: redis.url,
    redisHeartbeatMs: HEARTBEAT_MS,
    logDestination: makeLogCapture(),
  });
  relays.push(r);
  return r;
}

/** A replica as its own process, so it can be killed with -9. */
async function replicaProcess() {
  const r = await startReplicaProcess({
    redisUrl: redis.url,
    dataDir: tmp(),
    heartbeatMs: HEARTBEAT_MS,
  });
  children.push(r.child);
  return r;
}

async function client(u: string): Promise<TestClient> {
  const c = await connectClient(u);
  clients.push(c);
  return c;
}

describe('Fan-out across replicas (one Redis channel per room)', () => {
  it('machine on A, phone on B: msg both ways, verbatim, in order; hello-ok peers are global', async () => {
    const [a, b] = [await replica(), await replica()];
    const room = newRoom();
    const m = await client(a.url);
    expect(await m.hello(room, 'machine')).toMatchObject({ peers: { machine: 1, phone: 0 } });
    const p = await client(b.url);
    expect(await p.hello(room, 'phone')).toMatchObject({ peers: { machine: 1, phone: 1 } });
    expect(await m.nextFrame('presence')).toEqual({
      kind: 'presence',
      room,
      role: 'phone',
      online: true,
    });

    const odd = `{ "room":"${room}", "kind":"msg", "payload":"QUJD", "push":null, "future":{"x":[1,2]} }`;
    const sent = [
      odd,
      ...[1, 2, 3, 4, 5].map((i) => `{"kind":"msg","room":"${room}","payload":"m${i}"}`),
    ];
    for (const f of sent) m.send(f);
    for (const f of sent) expect(await p.nextRaw()).toBe(f);
    const back = `{"kind":"msg","room":"${room}","payload":"cGhvbmU=","x":"é"}`;
    p.send(back);
    expect(await m.nextRaw()).toBe(back);
    // D6 across replicas too: the push field never reaches a phone.
    m.send(`{"kind":"msg","room":"${room}","payload":"QUJD","push":{"payload":"UFVTSA=="}}`);
    expect(JSON.parse(await p.nextRaw())).toEqual({ kind: 'msg', room, payload: 'QUJD' });
    // Nothing echoes back to the sender's role, on either replica; and no push-disabled either,
    // as the phone on B is live (the push decision is global).
    await m.expectNoFrame();
  });

  it('a replica that holds no socket of the room is not subscribed to its channel', async () => {
    const [a, b] = [await replica(), await replica()];
    const room = newRoom();
    const probe = new Redis(redis.url);
    onTestFinished(() => probe.disconnect());
    const m = await client(a.url);
    await m.hello(room, 'machine');
    const p = await client(b.url);
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    const numsub = async () => {
      const r = (await probe.pubsub('NUMSUB', `relay:ch:${room}`)) as [string, number];
      return r[1];
    };
    expect(await numsub()).toBe(2);
    await p.close();
    expect(await m.nextFrame('presence')).toMatchObject({ role: 'phone', online: false });
    // B dropped the room's channel once its last socket of it left; A still holds it. B issued
    // that unsubscribe before any later subscribe on the same connection, so a hello-ok for
    // another room on B (which waits for its subscribe) orders the check — no sleep.
    const q = await client(b.url);
    await q.hello(newRoom(), 'phone');
    expect(await numsub()).toBe(1);
  });
});

describe('Presence across replicas (spec: online:false only when the last socket of that role leaves)', () => {
  it('a second phone on A, the first leaves B → no online:false; the last leaves → online:false', async () => {
    const [a, b] = [await replica(), await replica()];
    const room = newRoom();
    const m = await client(a.url);
    await m.hello(room, 'machine');
    const p1 = await client(b.url);
    await p1.hello(room, 'phone');
    expect(await m.nextFrame('presence')).toMatchObject({ role: 'phone', online: true });
    const p2 = await client(a.url);
    expect(await p2.hello(room, 'phone')).toMatchObject({ peers: { machine: 1, phone: 2 } });
    expect(await m.nextFrame('presence')).toMatchObject({ role: 'phone', online: true });
    await p1.close();
    await m.expectNoFrame(300);
    await p2.close();
    expect(await m.nextFrame('presence')).toEqual({
      kind: 'presence',
      room,
      role: 'phone',
      online: false,
    });
  });

  it('the machine leaving B is heard by phones on A and on C', async () => {
    const [a, b, c] = [await replica(), await replica(), await replica()];
    const room = newRoom();
    const pa = await client(a.url);
    await pa.hello(room, 'phone');
    const pc = await client(c.url);
    await pc.hello(room, 'phone');
    const m = await client(b.url);
    expect(await m.hello(room, 'machine')).toMatchObject({ peers: { machine: 1, phone: 2 } });
    for (const p of [pa, pc])
      expect(await p.nextFrame('presence')).toMatchObject({ role: 'machine', online: true });
    await m.close();
    for (const p of [pa, pc])
      expect(await p.nextFrame('presence')).toMatchObject({ role: 'machine', online: false });
  });

  it('kill -9 of replica B → the machine on A hears online:false within the heartbeat bound', async () => {
    const a = await replica();
    const b = await replicaProcess();
    const room = newRoom();
    const m = await client(a.url);
    await m.hello(room, 'machine');
    const p = await client(b.url);
    await p.hello(room, 'phone');
    expect(await m.nextFrame('presence')).toMatchObject({ role: 'phone', online: true });
    const killedMs = Date.now();
    process.kill(-(b.child.pid as number), 'SIGKILL');
    expect(await m.nextFrame('presence')).toMatchObject({ role: 'phone', online: false });
    // Key TTL of 3 beats plus one reap interval, with slack for a loaded 2-core machine.
    expect(Date.now() - killedMs).toBeLessThan(HEARTBEAT_MS * 4 + 1_500);
    // The dead replica no longer counts: a new phone sees exactly itself.
    const p2 = await client(a.url);
    expect(await p2.hello(room, 'phone')).toMatchObject({ peers: { machine: 1, phone: 1 } });
  });
});
