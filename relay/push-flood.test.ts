// H1: the audit's push flood against a slow push service must not stall the relay. One client
// joins 8 rooms as phone and stores 10 subscriptions in each, rejoins them as machine and sends
// 160 push hints (1,600 push requests). The relay runs as its own process, so /healthz measures
// its event loop alone; the samples are open-loop (one sent every 5 ms whether or not earlier
// ones were answered, so a stall delays every sample sent during it, not just one), each timed
// from when it was sent. Rate limits are off: the
// per-room and per-IP push caps would cut the flood to 40 hints, and the relay-wide queue must
// hold on its own. The 100 ms bound is the rule under test with a wide margin (a healthy relay
// answers in about 1 ms here). On a machine other work saturates, the same relay answers slowly
// even with nothing to do (p99 of hundreds of ms at load 12 on 2 cores), so the bound is also
// never below 8 × the p99 this relay shows without the flood, measured just before it: a stall
// like the audit's (7 s) still fails, a busy machine does not. Counts and time are bounded.
import crypto from 'node:crypto';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from '../testkit/push-service.ts';
import { newRoom } from './test-support/relay-fixture.ts';
import { startRelayProcess, type RelayProcess } from './test-support/relay-process.ts';
import { connectClient, type TestClient } from './test-support/ws-client.ts';

const ROOMS = 8;
const SUBSCRIPTIONS_PER_ROOM = 10;
const HINTS = 160;
const SERVICE_DELAY_MS = 200;
const SAMPLE_EVERY_MS = 5;
const MAX_SAMPLES = 4_000;
const FLOOD_LIMIT_MS = 20_000;
const LEGIT_MESSAGES = 200;
const P99_LIMIT_MS = 100;
const QUIET_SAMPLES = 200;
const QUIET_FACTOR = 8;

let relay: RelayProcess | undefined;
let fake: FakePushService | undefined;
const clients: TestClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await relay?.stop();
  await fake?.close();
  relay = fake = undefined;
});

const healthz = (port: number, agent: http.Agent) =>
  new Promise<void>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/healthz', agent }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error('not 200'))));
      })
      .on('error', reject);
  });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const p99Of = (latencies: readonly number[]): number => {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.ceil(sorted.length * 0.99) - 1] as number;
};

/** Open-loop /healthz samples until `done()` or a bound. */
async function sampleHealthz(port: number, done: () => boolean): Promise<number[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < MAX_SAMPLES && !done(); i++) {
    const due = start + i * SAMPLE_EVERY_MS;
    if (due - start > FLOOD_LIMIT_MS) break;
    const wait = due - performance.now();
    if (wait > 0) await pause(wait); // the sampling schedule, not a synchronisation
    const sent = performance.now();
    pending.push(healthz(port, agent).then(() => void latencies.push(performance.now() - sent)));
  }
  await Promise.all(pending);
  agent.destroy();
  return latencies;
}

/** A machine and a phone in a room of their own exchange numbered messages during the flood. */
async function legitimateRoom(url: string) {
  const room = newRoom();
  const m = await connectClient(url);
  const p = await connectClient(url);
  clients.push(m, p);
  await m.hello(room, 'machine');
  await p.hello(room, 'phone');
  await m.nextFrame('presence');
  const text = (s: string) => Buffer.from(s).toString('base64');
  const send = async () => {
    for (let i = 0; i < LEGIT_MESSAGES; i++) {
      m.send({ kind: 'msg', room, payload: text(`m${i}`) });
      p.send({ kind: 'msg', room, payload: text(`p${i}`) });
      if (i % 10 === 9) await pause(20); // spread over the flood
    }
  };
  const receive = async (c: TestClient, prefix: string) => {
    const got: string[] = [];
    for (let i = 0; i < LEGIT_MESSAGES; i++)
      got.push(Buffer.from(String((await c.nextFrame('msg')).payload), 'base64').toString());
    return (
      got.join(',') === Array.from({ length: LEGIT_MESSAGES }, (_, i) => `${prefix}${i}`).join(',')
    );
  };
  const [, inOrderToPhone, inOrderToMachine] = await Promise.all([
    send(),
    receive(p, 'm'),
    receive(m, 'p'),
  ]);
  return inOrderToPhone && inOrderToMachine;
}

describe('H1: a push flood does not stall the relay', () => {
  it('8 rooms × 10 subscriptions, 160 push hints against a slow push service: /healthz p99 < 100 ms (never below 8 × its quiet p99), another room delivered in order', async () => {
    fake = await startFakePushService();
    fake.setMode({ kind: 'delay', ms: SERVICE_DELAY_MS });
    const r = (relay = await startRelayProcess([
      '--vapid-subject',
      'mailto:relay-test@example.com',
      '--unsafe-allow-push-origin',
      fake.origin,
      '--no-rate-limits',
      // P8 counts every socket from the TCP accept: the /healthz probes (up to 64 at once when the
      // host is busy) and the rooms' clients all come from 127.0.0.1, and this test is about the
      // push flood (H1), not the per-address cap.
      '--max-connections-per-ip',
      '256',
      '--log-level',
      'warn',
    ]));
    const rooms = Array.from({ length: ROOMS }, () => newRoom());
    const phone = await connectClient(r.url);
    for (const room of rooms) {
      await phone.hello(room, 'phone');
      for (let i = 0; i < SUBSCRIPTIONS_PER_ROOM; i++) {
        const sub = makeFakeSubscriber(fake.endpoint(`${room}-${i}`)).subscription;
        phone.send({ kind: 'push-subscribe', room, subscription: sub });
      }
    }
    await phone.hello(rooms[0] as string, 'phone');
    await phone.expectNoFrame(0);
    await phone.close();
    const machine = await connectClient(r.url);
    clients.push(machine);
    for (const room of rooms) await machine.hello(room, 'machine');
    // One push before the flood, as any running relay has sent: the flood is measured on a warm
    // relay, not on its first-ever push (modules and code paths loading once, ~30 ms here).
    const hint = (room: string) => {
      const payload = crypto.randomBytes(180).toString('base64');
      machine.send({ kind: 'msg', room, payload: 'bXNn', push: { payload, tag: 'approval' } });
    };
    hint(rooms[0] as string);
    for (let i = 0; i < SUBSCRIPTIONS_PER_ROOM; i++) await fake.nextRequest();
    await fake.drained();
    let quietSent = 0;
    const quietP99 = p99Of(await sampleHealthz(r.port, () => quietSent++ >= QUIET_SAMPLES));
    const limitMs = Math.max(P99_LIMIT_MS, QUIET_FACTOR * quietP99);
    const warm = fake.received();
    const received = () => (fake?.received() ?? 0) - warm;

    // Every one of the 1,600 requests is either received by the service or refused (queue full).
    let refused = 0;
    const otherFailures: string[] = [];
    const answers = (async () => {
      const until = performance.now() + FLOOD_LIMIT_MS;
      while (received() + refused < HINTS * SUBSCRIPTIONS_PER_ROOM) {
        if (performance.now() > until || machine.ws.readyState !== machine.ws.OPEN) return;
        // Partly refused hints are answered when their last admitted request is: wait on.
        const f = await machine.nextFrame('error').catch(() => null);
        if (f === null) continue;
        const m =
          /^push failed for \d+ of \d+ subscriptions \(relay push queue full: (\d+)\)$/.exec(
            String(f.message),
          );
        if (f.code === 'push-failed' && m) refused += Number(m[1]);
        else otherFailures.push(`${String(f.code)}: ${String(f.message)}`);
      }
    })();
    let flooded = false;
    const settled = () =>
      flooded && fake?.inFlight() === 0 && received() + refused >= HINTS * SUBSCRIPTIONS_PER_ROOM;
    const samples = sampleHealthz(r.port, settled);
    const legit = legitimateRoom(r.url);
    for (let i = 0; i < HINTS; i++) hint(rooms[i % ROOMS] as string);
    flooded = true;
    const [latencies, inOrder] = await Promise.all([samples, legit, answers]).then(
      ([l, o]) => [l, o] as const,
    );

    expect(otherFailures).toEqual([]);
    expect(received() + refused).toBe(HINTS * SUBSCRIPTIONS_PER_ROOM);
    expect(fake.maxInFlight()).toBeLessThanOrEqual(32); // --max-concurrent-pushes default
    expect(inOrder).toBe(true);
    const p99 = p99Of(latencies);
    expect(latencies.length).toBeGreaterThanOrEqual(200);
    expect(
      p99,
      `p99 ${p99.toFixed(1)} ms over ${latencies.length} samples (quiet p99 ${quietP99.toFixed(1)} ms)`,
    ).toBeLessThan(limitMs);
    expect(await r.stop()).toBe(0);
    relay = undefined;
  }, 60_000);
});
