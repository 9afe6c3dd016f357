// RS6: Redis briefly unreachable. Sockets stay open, /healthz answers 503 with a
// reason while it is down, and once it is back (here: restarted empty, the worst case)
// cross-replica delivery and presence counts resume, with nothing duplicated.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startRelay, type RunningRelay } from '../server.ts';
import { makeLogCapture, type LogCapture } from '../test-support/log-capture.ts';
import { newRoom } from '../test-support/relay-fixture.ts';
import { startRedis, type TestRedis } from '../test-support/redis-server.ts';
import { connectClient, type TestClient } from '../test-support/ws-client.ts';

const POLL_MS = 20;
const POLL_LIMIT_MS = 5_000; // a safety net, not a synchronisation

let redis: TestRedis;
const relays: RunningRelay[] = [];
const clients: TestClient[] = [];
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
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

async function replica(logs: LogCapture): Promise<RunningRelay> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-redis-res-'));
  dirs.push(dataDir);
  const r = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    redis: redis.url,
    redisHeartbeatMs: 150,
    logDestination: logs,
  });
  relays.push(r);
  return r;
}
async function client(u: string): Promise<TestClient> {
  const c = await connectClient(u);
  clients.push(c);
  return c;
}
const health = async (r: RunningRelay) => {
  const res = await fetch(`http://127.0.0.1:${r.port}/healthz`);
  return { status: res.status, body: (await res.json()) as unknown };
};
/** Polls /healthz until it answers `status` (the replica's own view of its Redis link). */
async function healthBecomes(r: RunningRelay, status: number) {
  const limit = Date.now() + POLL_LIMIT_MS;
  for (;;) {
    const h = await health(r);
    if (h.status === status) return h;
    if (Date.now() > limit) throw new Error(`/healthz still ${h.status}`);
    await new Promise((res) => setTimeout(res, POLL_MS));
  }
}
const msg = (room: string, payload: string) =>
  `{"kind":"msg","room":"${room}","payload":"${payload}"}`;

describe('RS6: Redis briefly unreachable', () => {
  it('sockets stay open, /healthz 503 with a reason, delivery resumes after a restart, nothing duplicated', async () => {
    const logsA = makeLogCapture();
    const [a, b] = [await replica(logsA), await replica(makeLogCapture())];
    const room = newRoom();
    const m = await client(a.url);
    await m.hello(room, 'machine');
    const p = await client(b.url);
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    m.send(msg(room, 'YmVmb3Jl'));
    expect(await p.nextRaw()).toBe(msg(room, 'YmVmb3Jl'));
    expect(await health(a)).toEqual({ status: 200, body: { ok: true } });

    await redis.down();
    expect((await healthBecomes(a, 503)).body).toEqual({ ok: false, reason: 'redis unreachable' });
    await healthBecomes(b, 503);
    // Still open and served: a repeated hello replays hello-ok on both sockets.
    m.send(msg(room, 'ZHVyaW5n')); // cross-replica delivery fails now; only an error is logged
    expect(await m.hello(room, 'machine')).toMatchObject({ kind: 'hello-ok' });
    expect(await p.hello(room, 'phone')).toMatchObject({ kind: 'hello-ok' });

    await redis.up();
    await healthBecomes(a, 200);
    await healthBecomes(b, 200);
    const sent = ['MQ==', 'Mg==', 'Mw=='].map((x) => msg(room, x));
    for (const f of sent) m.send(f);
    for (const f of sent) expect(await p.nextRaw()).toBe(f);
    p.send(msg(room, 'YmFjaw=='));
    expect(await m.nextRaw()).toBe(msg(room, 'YmFjaw=='));
    await p.expectNoFrame(200);
    await m.expectNoFrame();
    // Counts came back with the replicas: a new phone on A sees the machine and both phones.
    const p2 = await client(a.url);
    expect(await p2.hello(room, 'phone')).toMatchObject({ peers: { machine: 1, phone: 2 } });
    // The error was logged without the payload.
    expect(logsA.text()).toContain('redis');
    expect(logsA.text()).not.toContain('ZHVyaW5n');
  });
});
