// P8: caps before the WebSocket upgrade. Sockets count from the TCP accept on — per address and,
// while their first request's headers are still arriving, in total — so slow or half-open clients
// cannot take every descriptor. Each slow client here is a raw TCP socket on loopback that sends
// nothing or half a request line and stalls. The headers deadline and the keep-alive timeout are
// Node's HTTP server's own timers (not the relay's clock), so those tests configure a real short
// one and wait for the close events.
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../testkit/until.ts';
import { newRoom, startFixture, type Fixture } from './test-support/relay-fixture.ts';
import type { RelayOptions } from './server.ts';

let fx: Fixture | undefined;
const raws: net.Socket[] = [];
afterEach(async () => {
  for (const s of raws.splice(0)) s.destroy();
  await fx?.stop();
  fx = undefined;
});
const start = async (o: RelayOptions) => (fx = await startFixture(o));

const HALF_LINE = 'GET / HT';
type Raw = { socket: net.Socket; isClosed: () => boolean; closed: Promise<string> };
/** A raw socket from `localAddress` that sends `text` (or nothing) once connected and stalls. */
function slowSocket(port: number, localAddress: string, text = ''): Raw {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress });
  raws.push(socket);
  let got = '';
  let closed = false;
  socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
  socket.on('error', () => undefined); // a socket closed at accept may see a reset
  socket.once('connect', () => text && socket.write(text));
  return {
    socket,
    isClosed: () => closed,
    closed: new Promise((resolve) =>
      socket.once('close', () => {
        closed = true;
        resolve(got);
      }),
    ),
  };
}
const slowOnes = (port: number, n: number, from: string) =>
  Array.from({ length: n }, (_, i) => slowSocket(port, from, i % 2 === 0 ? '' : HALF_LINE));

function healthz(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
      .once('error', reject);
  });
}

describe('P8: caps before the WebSocket upgrade', () => {
  it('P8: slow sockets from one address are held to its cap from the accept on, while a phone joins and /healthz answers', async () => {
    const f = await start({
      maxConnectionsPerIp: 4,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 120_000,
    });
    const slow = slowOnes(f.relay.port, 12, '127.0.0.3');
    // The cap plus the one socket that would be told `limit` after its upgrade (D3) are held;
    // every further one is closed at accept.
    await until(() => slow.filter((s) => s.isClosed()).length === 7, 'seven closed at accept');
    expect(f.relay.handshakes()).toBe(5);

    const room = newRoom();
    const machine = await f.client();
    expect(await machine.hello(room, 'machine')).toMatchObject({ kind: 'hello-ok' });
    const phone = await f.client();
    expect(await phone.hello(room, 'phone')).toMatchObject({ kind: 'hello-ok' });
    expect(await machine.nextFrame('presence')).toMatchObject({ role: 'phone', online: true });
    phone.send({ kind: 'msg', room, payload: 'QUJD' });
    expect(await machine.nextFrame('msg')).toMatchObject({ room, payload: 'QUJD' });
    expect(await healthz(f.relay.port)).toBe(200);

    // Still held, and the address still cannot open more.
    const more = slowSocket(f.relay.port, '127.0.0.3');
    await more.closed;
    expect(slow.filter((s) => !s.isClosed())).toHaveLength(5);
    expect(f.relay.handshakes()).toBe(5);
  });

  it("P8: sockets that send nothing or half a request line are closed by the headers deadline (Node's timer, real 300 ms); the address can then join", async () => {
    const f = await start({ maxConnectionsPerIp: 4, headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const slow = slowOnes(f.relay.port, 5, '127.0.0.3');
    const answers = await Promise.all(slow.map((s) => s.closed));
    for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 408 /);
    await until(() => f.relay.handshakes() === 0, 'no handshake left');
    const c = await f.client({ localAddress: '127.0.0.3' });
    expect(await c.hello(newRoom(), 'phone')).toMatchObject({ kind: 'hello-ok' });
  });

  it('P8: sockets still sending their first request are capped in total, over every address; one gone frees its place', async () => {
    const f = await start({
      maxHandshakes: 3,
      headersTimeoutMs: 60_000,
      requestTimeoutMs: 120_000,
    });
    const slow = ['127.0.0.10', '127.0.0.11', '127.0.0.12', '127.0.0.13', '127.0.0.14'].map(
      (a, i) => slowSocket(f.relay.port, a, i % 2 === 0 ? '' : HALF_LINE),
    );
    await until(() => slow.filter((s) => s.isClosed()).length === 2, 'two closed at accept');
    expect(f.relay.handshakes()).toBe(3);
    slow.find((s) => !s.isClosed())?.socket.destroy();
    await until(() => f.relay.handshakes() === 2, 'its place freed');
    const c = await f.client();
    expect(await c.hello(newRoom(), 'phone')).toMatchObject({ kind: 'hello-ok' });
    expect(f.relay.handshakes()).toBe(2); // an upgraded socket is no longer a handshake
    expect(await healthz(f.relay.port)).toBe(200);
  });

  it("P8: an HTTP connection idle after its request is closed by the keep-alive timeout (Node's timer, real 200 ms)", async () => {
    const f = await start({ keepAliveTimeoutMs: 200 });
    const s = slowSocket(f.relay.port, '127.0.0.4', 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await s.closed).toMatch(/^HTTP\/1\.1 200 /);
    expect(f.relay.handshakes()).toBe(0);
  });
});
