// D2/D3 caps: for each, N is accepted and N+1 refused with {"kind":"error","code":"limit"}
// (or 503 at the upgrade for the total cap); time-based rules run on the injected clock.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { expectUpgradeRefused } from './test-support/ws-client.ts';
import { newRoom, startFixture, type Fixture } from './test-support/relay-fixture.ts';
import type { RelayOptions } from './server.ts';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.stop();
  fx = undefined;
});
const start = async (o: RelayOptions) => (fx = await startFixture(o));
const msg = (room: string, payload = 'QUJD') => JSON.stringify({ kind: 'msg', room, payload });

describe('D3: rooms per socket', () => {
  it('3 rooms are joined, the 4th gets limit and the socket stays open', async () => {
    const f = await start({ maxRoomsPerSocket: 3 });
    const c = await f.client();
    for (let i = 0; i < 3; i++) await c.hello(newRoom(), 'phone');
    c.send({ kind: 'hello', room: newRoom(), role: 'phone' });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'limit' });
    const room = newRoom();
    const m = await f.client();
    await m.hello(room, 'machine');
    c.send({ kind: 'hello', room, role: 'phone' });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'limit' });
    await m.expectNoFrame(); // no presence for a refused join
  });
});

describe('D3: sockets per room and role', () => {
  it.each([
    ['phone', { maxPhonesPerRoom: 2 }],
    ['machine', { maxMachinesPerRoom: 2 }],
  ] as const)(
    '2 %s sockets join, the 3rd gets limit and (no room left) is closed 1008',
    async (role, o) => {
      const f = await start(o);
      const room = newRoom();
      const a = await f.client();
      await a.hello(room, role);
      const b = await f.client();
      await b.hello(room, role);
      const c = await f.client();
      c.send({ kind: 'hello', room, role });
      expect(await c.nextFrame('error')).toMatchObject({ code: 'limit' });
      expect((await c.closed).code).toBe(1008);
      await b.close();
      const d = await f.client();
      expect(await d.hello(room, role)).toMatchObject({ kind: 'hello-ok' });
    },
  );

  it('a socket already in a room gets limit but stays open', async () => {
    const f = await start({ maxPhonesPerRoom: 1 });
    const full = newRoom();
    await (await f.client()).hello(full, 'phone');
    const c = await f.client();
    await c.hello(newRoom(), 'phone');
    c.send({ kind: 'hello', room: full, role: 'phone' });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'limit' });
    await c.expectNoFrame();
    expect(f.relay.connections()).toBe(2);
  });
});

describe('D3: connections per IP', () => {
  it('3 connections from one IP are served, the 4th gets limit and close 1008', async () => {
    const f = await start({ maxConnectionsPerIp: 3 });
    const cs = [await f.client(), await f.client(), await f.client()];
    const fourth = await f.client();
    expect(await fourth.nextFrame('error')).toMatchObject({ code: 'limit' });
    expect((await fourth.closed).code).toBe(1008);
    await cs[0]?.close();
    const again = await f.client();
    expect(await again.hello(newRoom(), 'phone')).toMatchObject({ kind: 'hello-ok' });
  });

  it('--trust-proxy counts the last X-Forwarded-For address instead of the TCP peer', async () => {
    const f = await start({ maxConnectionsPerIp: 1, trustProxy: true });
    const a = await f.client({ headers: { 'x-forwarded-for': '203.0.113.1' } });
    const b = await f.client({ headers: { 'x-forwarded-for': '198.51.100.7, 203.0.113.2' } });
    await a.hello(newRoom(), 'phone');
    await b.hello(newRoom(), 'phone');
    const c = await f.client({ headers: { 'x-forwarded-for': '203.0.113.1' } });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'limit' });
  });
});

describe('D3: total connections', () => {
  it('3 connections are served, the 4th upgrade is answered 503', async () => {
    const f = await start({ maxConnections: 3 });
    for (let i = 0; i < 3; i++) await f.client();
    expect(await expectUpgradeRefused(f.relay.url)).toBe(503);
  });
});

describe('D3: message rate per socket', () => {
  it('a burst of 3 passes, the 4th gets limit; a token returns after 1/rate seconds', async () => {
    const f = await start({ msgRatePerSec: 2, msgBurst: 3 });
    const room = newRoom();
    const m = await f.client();
    await m.hello(room, 'machine'); // the first hello takes no token
    const p = await f.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    for (let i = 0; i < 3; i++) m.send(msg(room, `QUJD${i}AA=`.slice(0, 8)));
    for (let i = 0; i < 3; i++) await p.nextFrame('msg');
    m.send(msg(room));
    expect(await m.nextFrame('error')).toMatchObject({ code: 'limit' });
    await p.expectNoFrame();
    f.timers.advance(499);
    m.send(msg(room));
    expect(await m.nextFrame('error')).toMatchObject({ code: 'limit' });
    f.timers.advance(501);
    m.send(msg(room));
    await p.nextFrame('msg');
  });

  it('--no-rate-limits lets every frame through', async () => {
    const f = await start({ msgRatePerSec: 1, msgBurst: 1, rateLimits: false });
    const room = newRoom();
    const m = await f.client();
    await m.hello(room, 'machine');
    const p = await f.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    for (let i = 0; i < 200; i++) m.send(msg(room));
    for (let i = 0; i < 200; i++) await p.nextFrame('msg');
    await m.expectNoFrame();
  });
});

describe('Heartbeat: ping every interval, terminate a socket that missed its pong', () => {
  it('a socket that answers pings stays; one that does not is terminated after the next interval', async () => {
    const f = await start({ pingIntervalMs: 25_000 });
    const room = newRoom();
    const m = await f.client();
    await m.hello(room, 'machine');
    const live = await f.client();
    await live.hello(room, 'phone');
    const dead = await f.client({ autoPong: false });
    await dead.hello(room, 'phone');
    await m.nextFrame('presence');
    await m.nextFrame('presence');
    const pinged = new Promise((r) => live.ws.once('ping', r));
    f.timers.advance(25_000);
    await pinged;
    // The pong went out before this hello, so the relay has seen it when hello-ok comes back.
    await live.hello(room, 'phone');
    await m.hello(room, 'machine');
    f.timers.advance(25_000);
    expect((await dead.closed).code).toBe(1006);
    await live.expectNoFrame();
    expect(f.relay.connections()).toBe(2);
  });
});

describe('D3: a socket whose unsent buffer passes the cap is terminated', () => {
  it('a phone that stops reading is dropped; the machine hears online:false', async () => {
    const f = await start({ maxBufferedBytes: 64 * 1024, rateLimits: false });
    const room = newRoom();
    const m = await f.client();
    await m.hello(room, 'machine');
    const p = await f.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    const sock = (p.ws as unknown as { _socket: net.Socket })._socket;
    sock.pause();
    const big = msg(room, 'A'.repeat(16_000));
    const offline = m.nextFrame('presence');
    // Bounded: 1,000 × 16 KB is far more than loopback's kernel buffers plus the cap.
    for (let i = 0; i < 1_000 && f.relay.connections() === 2; i++) {
      const written = new Promise<void>((r) => m.ws.send(big, () => r()));
      if (i % 50 === 49) await written;
    }
    expect(await offline).toMatchObject({ kind: 'presence', role: 'phone', online: false });
    sock.resume();
  });
});

describe('HTTP header/request timeouts (slowloris)', () => {
  it('a request whose headers never finish is cut off', async () => {
    const f = await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const sock = net.connect(f.relay.port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    sock.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const ended = new Promise<string>((resolve) => {
      let got = '';
      sock.on('data', (d) => (got += d.toString()));
      sock.on('close', () => resolve(got));
    });
    expect(await ended).toMatch(/^HTTP\/1\.1 408/);
  });
});
