// P5: GET <path>/metrics in Prometheus text format, off by default; the names an operator's
// alerts use; counts that follow real traffic; and no label that carries a room id, an
// endpoint or an address.
import crypto from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { build } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from '../testkit/push-service.ts';
import { newRoom, startFixture, type Fixture } from './test-support/relay-fixture.ts';
import { startRedis, type TestRedis } from './test-support/redis-server.ts';
import type { RelayOptions } from './server.ts';
import { expectUpgradeRefused } from './test-support/ws-client.ts';

let fx: Fixture | undefined;
let fake: FakePushService | undefined;
let redis: TestRedis | undefined;
afterEach(async () => {
  await fx?.stop();
  await fake?.close();
  await redis?.stop();
  fx = fake = redis = undefined;
});

// This file picks its own relay mode: the [redis] project does not run it.
const start = async (o: RelayOptions) => (fx = await startFixture({ redis: undefined, ...o }));

function get(
  port: number,
  target: string,
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: target }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? '', body }),
        );
      })
      .on('error', reject);
  });
}

type Sample = { name: string; labels: Record<string, string>; value: number };
/** The exposition's samples (comment lines skipped). */
function samples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not Prometheus text: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}
const value = (all: Sample[], name: string, labels: Record<string, string> = {}) => {
  const s = all.find(
    (x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
  );
  if (!s) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
  return s.value;
};
const scrape = async (f: Fixture, base = '') => {
  const r = await get(f.relay.port, `${base}/metrics`);
  expect(r.status).toBe(200);
  return { text: r.body, all: samples(r.body), type: r.type };
};

const pushMsg = (room: string) =>
  JSON.stringify({
    kind: 'msg',
    room,
    payload: 'bXNn',
    push: { payload: crypto.randomBytes(60).toString('base64') },
  });

describe('P5: /metrics is off by default', () => {
  it('without --metrics, GET /metrics is 404', async () => {
    const f = await start({});
    expect((await get(f.relay.port, '/metrics')).status).toBe(404);
  });

  it('P5: the relay bundle `npm run relay` runs loads prom-client only with --metrics (no static import of it)', async () => {
    const out = await build({
      entryPoints: [path.join(import.meta.dirname, 'main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      write: false,
      logLevel: 'silent',
    });
    const code = out.outputFiles[0]!.text;
    expect(code).toContain('import("prom-client")');
    expect(code).not.toMatch(/^import [^\n]* from "prom-client";$/m);
  });
});

describe('P5: the operator’s view', () => {
  it('P5: every documented name is exposed, counts follow the traffic, and no label carries a room id, an endpoint or an address', async () => {
    fake = await startFakePushService();
    const f = await start({
      metrics: true,
      path: '/relay',
      vapidSubject: 'mailto:metrics-test@example.com',
      unsafeAllowPushOrigins: [fake.origin],
      maxRoomsPerSocket: 1,
    });
    const room = newRoom();
    const endpointId = `device-${crypto.randomUUID()}`;
    const subscriber = makeFakeSubscriber(fake.endpoint(endpointId));

    // A phone subscribes and leaves; a machine pushes twice: one accepted, one 410 (gone).
    const phone = await f.client();
    await phone.hello(room, 'phone');
    phone.send({ kind: 'push-subscribe', room, subscription: subscriber.subscription });
    phone.send('{not json'); // bad-frame
    phone.send({ kind: 'hello', room: newRoom(), role: 'phone' }); // rooms-per-socket limit
    expect(await phone.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
    expect(await phone.nextFrame('error')).toMatchObject({ code: 'limit' });
    await f.relay.idle();
    await phone.close();
    const machine = await f.client();
    await machine.hello(room, 'machine');
    fake.respondWith(201, 410);
    machine.send(pushMsg(room));
    await fake.nextRequest();
    await f.relay.idle();
    machine.send(pushMsg(room));
    await fake.nextRequest();
    expect(await machine.nextFrame('error')).toMatchObject({ code: 'push-failed' });
    // Now a phone and a socket that never said hello, for the gauges.
    const phone2 = await f.client();
    await phone2.hello(room, 'phone');
    await f.client();
    machine.send({ kind: 'msg', room, payload: 'QUJD' });
    await phone2.nextFrame('msg');

    const { text, all, type } = await scrape(f, '/relay');
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'dsh_relay_connections',
      'dsh_relay_max_connections',
      'dsh_relay_rooms',
      'dsh_relay_connections_opened_total',
      'dsh_relay_frames_received_total',
      'dsh_relay_received_bytes_total',
      'dsh_relay_frames_sent_total',
      'dsh_relay_sent_bytes_total',
      'dsh_relay_refusals_total',
      'dsh_relay_limit_hits_total',
      'dsh_relay_upgrades_refused_total',
      'dsh_relay_pushes_sent_total',
      'dsh_relay_pushes_failed_total',
      'dsh_relay_push_subscriptions_expired_total',
      'dsh_relay_push_duration_seconds',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect(text, name).toContain(`# TYPE ${name} `);
    expect(text).not.toContain('dsh_relay_redis_up'); // only with --redis

    expect(value(all, 'dsh_relay_connections', { role: 'machine' })).toBe(1);
    expect(value(all, 'dsh_relay_connections', { role: 'phone' })).toBe(1);
    expect(value(all, 'dsh_relay_connections', { role: 'none' })).toBe(1);
    expect(value(all, 'dsh_relay_max_connections')).toBe(10_000);
    expect(value(all, 'dsh_relay_rooms', { role: 'machine' })).toBe(1);
    expect(value(all, 'dsh_relay_rooms', { role: 'phone' })).toBe(1);
    expect(value(all, 'dsh_relay_connections_opened_total')).toBe(4);
    expect(value(all, 'dsh_relay_refusals_total', { code: 'bad-frame' })).toBe(1);
    expect(value(all, 'dsh_relay_refusals_total', { code: 'limit' })).toBe(1);
    expect(value(all, 'dsh_relay_refusals_total', { code: 'push-failed' })).toBe(1);
    expect(value(all, 'dsh_relay_limit_hits_total', { limit: 'rooms-per-socket' })).toBe(1);
    expect(value(all, 'dsh_relay_limit_hits_total', { limit: 'msg-rate' })).toBe(0);
    expect(value(all, 'dsh_relay_pushes_sent_total')).toBe(1);
    expect(value(all, 'dsh_relay_pushes_failed_total')).toBe(1);
    expect(value(all, 'dsh_relay_push_subscriptions_expired_total', { reason: 'gone' })).toBe(1);
    expect(value(all, 'dsh_relay_push_duration_seconds_count')).toBe(2);
    // Frames in: 2 phone hellos + subscribe + bad + hello, machine hello + 2 pushes + msg.
    expect(value(all, 'dsh_relay_frames_received_total')).toBe(9);
    expect(value(all, 'dsh_relay_received_bytes_total')).toBeGreaterThan(9 * 20);
    // Frames out: hello-ok ×3, 3 errors, presence to the phone2 and the machine, the msg.
    expect(value(all, 'dsh_relay_frames_sent_total')).toBeGreaterThanOrEqual(8);
    expect(value(all, 'dsh_relay_sent_bytes_total')).toBeGreaterThan(0);

    // No label anywhere holds the room id (or its 8-character log prefix), the endpoint, or an
    // address; the relay's own labels come from closed sets.
    for (const s of all)
      for (const v of Object.values(s.labels)) {
        expect(v).not.toContain(room.slice(0, 8));
        expect(v).not.toContain(endpointId);
        expect(v).not.toMatch(/127\.0\.0\.1|::1|\d+\.\d+\.\d+\.\d+/);
      }
    const closed = new Set([
      ...['machine', 'phone', 'none', 'gone', 'stale', 'not-found', 'full', 'closing'],
      ...['bad-hello', 'bad-frame', 'too-large', 'push-disabled', 'push-no-subscribers'],
      ...['push-failed', 'limit', 'hello-deadline', 'msg-rate', 'rooms-per-socket'],
      ...['phones-per-room', 'machines-per-room', 'connections-per-ip', 'connections'],
      ...['subscriptions-per-room', 'subscriptions-per-ip', 'subscriptions', 'push-rate'],
      ...['buffered-bytes', 'ping-timeout', 'handshakes'],
    ]);
    for (const s of all.filter((x) => x.name.startsWith('dsh_relay_')))
      for (const [k, v] of Object.entries(s.labels))
        expect(k === 'le' || closed.has(v), `${s.name}{${k}="${v}"}`).toBe(true);
  });

  it('P5: limit hits are counted by limit (message rate, per IP, the total cap, hello deadline); upgrades refused by reason', async () => {
    const f = await start({
      metrics: true,
      trustProxy: true,
      maxConnections: 3,
      maxConnectionsPerIp: 1,
      msgRatePerSec: 1,
      msgBurst: 1,
    });
    const from = (ip: string) => f.client({ headers: { 'x-forwarded-for': ip } });
    const a = await from('10.0.0.1');
    const room = newRoom();
    await a.hello(room, 'machine');
    a.send({ kind: 'msg', room, payload: 'QUJD' }); // takes the one token
    a.send({ kind: 'msg', room, payload: 'QUJD' });
    expect(await a.nextFrame('error')).toMatchObject({ code: 'limit' });
    const b = await from('10.0.0.1');
    expect(await b.nextFrame('error')).toMatchObject({ code: 'limit' });
    await b.closed;
    const c = await from('10.0.0.2');
    const d = await from('10.0.0.3');
    expect(await expectUpgradeRefused(f.relay.url)).toBe(503);
    expect(await expectUpgradeRefused(`${f.relay.url}/elsewhere`)).toBe(404);
    f.timers.advance(5_000); // c and d never said hello
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-hello' });
    await Promise.all([c.closed, d.closed]);
    const { all } = await scrape(f);
    const hits = (limit: string) => value(all, 'dsh_relay_limit_hits_total', { limit });
    expect([hits('msg-rate'), hits('connections-per-ip'), hits('connections')]).toEqual([1, 1, 1]);
    expect(hits('hello-deadline')).toBe(2);
    expect(value(all, 'dsh_relay_upgrades_refused_total', { reason: 'full' })).toBe(1);
    expect(value(all, 'dsh_relay_upgrades_refused_total', { reason: 'not-found' })).toBe(1);
    expect(value(all, 'dsh_relay_refusals_total', { code: 'bad-hello' })).toBe(2);
    for (const s of all) for (const v of Object.values(s.labels)) expect(v).not.toMatch(/^10\./);
  });

  it('P5: with --redis, dsh_relay_redis_up is 1 while Redis answers and 0 when it is gone', async () => {
    redis = await startRedis();
    const f = await start({ metrics: true, redis: redis.url });
    expect(value((await scrape(f)).all, 'dsh_relay_redis_up')).toBe(1);
    await redis.down();
    await expect.poll(async () => value((await scrape(f)).all, 'dsh_relay_redis_up')).toBe(0);
  });
});
