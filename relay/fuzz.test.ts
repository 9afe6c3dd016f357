// Bad-frame fuzz (issue 3 §6): thousands of hostile frames from many sockets, before and after
// hello, while a legitimate room keeps talking. The relay must stay up, every reply must be the
// one the rules require (an oracle derived from the rules and protocol's parser), and the
// legitimate traffic must all arrive, in order. Bounded: a fixed frame count, seeded PRNG.
import { isUtf8 } from 'node:buffer';
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseClientFrame } from '../protocol/index.ts';
import { checkSubscription } from './push-endpoint.ts';
import { startFixture, type Fixture } from './test-support/relay-fixture.ts';
import { connectClient, type TestClient } from './test-support/ws-client.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261130);
const PRE_HELLO_SOCKETS = 600;
const POST_HELLO_SOCKETS = 16;
const FRAMES_PER_SOCKET = 120;
const LEGIT_MESSAGES = 400;

function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  return { next, int, pick, bytes };
}
type Rng = ReturnType<typeof prng>;

type Hostile = { data: Buffer; binary: boolean; label: string };
const j = (v: unknown) => Buffer.from(JSON.stringify(v));
const padTo = (size: number, room: string) => {
  const base = JSON.stringify({ kind: 'msg', room, payload: '' }).length;
  return Buffer.from(
    JSON.stringify({ kind: 'msg', room, payload: 'A'.repeat(Math.max(0, size - base)) }),
  );
};
const resolve = async (host: string) =>
  host.endsWith('.example.com') ? ['93.184.216.34'] : ['10.0.0.1'];
const p256dh = crypto.createECDH('prime256v1').generateKeys().toString('base64url');

function hostile(r: Rng, rooms: readonly string[], role: 'machine' | 'phone'): Hostile {
  const room = r.pick(rooms);
  const b64 = () => r.bytes(r.int(40)).toString('base64');
  const cases: (() => Hostile)[] = [
    () => ({ data: r.bytes(r.int(200)), binary: false, label: 'random bytes' }),
    () => ({ data: r.bytes(r.int(200)), binary: true, label: 'binary frame' }),
    () => ({ data: j({ kind: 'msg', room, payload: b64() }), binary: true, label: 'binary msg' }),
    () => ({
      data: Buffer.concat([
        Buffer.from(`{"kind":"msg","room":"${room}","payload":"`),
        Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]),
        Buffer.from('"}'),
      ]),
      binary: false,
      label: 'invalid UTF-8',
    }),
    () => ({
      data: Buffer.from('['.repeat(10_000)),
      binary: false,
      label: '10,000-deep unbalanced',
    }),
    () => ({
      data: Buffer.from('['.repeat(10_000) + ']'.repeat(10_000)),
      binary: false,
      label: '10,000-deep',
    }),
    () => ({
      data: Buffer.from(
        `{"kind":"msg","room":"${room}","payload":${'['.repeat(8_000)}${']'.repeat(8_000)}}`,
      ),
      binary: false,
      label: '8,000-deep payload',
    }),
    () => ({
      data: Buffer.from(`{"kind":"msg","room":"${room}","payload":1e999999}`),
      binary: false,
      label: 'huge number',
    }),
    () => ({
      data: Buffer.from(`{"kind":"hello","room":${'9'.repeat(5_000)},"role":"${role}"}`),
      binary: false,
      label: '5,000-digit number',
    }),
    () => ({
      data: Buffer.from(
        `{"__proto__":{"kind":"hello","room":"${room}","role":"${role}"},"constructor":{"prototype":1}}`,
      ),
      binary: false,
      label: '__proto__ key',
    }),
    () => ({
      data: Buffer.from(`{"kind":"hello","__proto__":null,"room":"${room}","role":"${role}"}`),
      binary: false,
      label: '__proto__ key + hello',
    }),
    () => ({ data: j({ kind: 'hello', room, role }), binary: false, label: 'valid hello' }),
    () => ({
      data: j({ kind: 'hello', room, role: r.pick(['admin', 1, null, ['phone']]) }),
      binary: false,
      label: 'bad role',
    }),
    () => ({
      data: j({ kind: r.pick([1, null, ['msg'], { a: 1 }, 'MSG', 'hello-ok', 'presence']), room }),
      binary: false,
      label: 'wrong kind',
    }),
    () => ({
      data: j({
        kind: 'msg',
        room: r.pick([1, null, 'short', 'x'.repeat(129), 'a b c d e f', { r: 1 }]),
        payload: 'QQ==',
      }),
      binary: false,
      label: 'bad room',
    }),
    () => ({
      data: j({ kind: 'msg', room, payload: r.pick([1, null, {}, [], true]) }),
      binary: false,
      label: 'wrong payload type',
    }),
    () => ({ data: j({ kind: 'msg', room, payload: b64() }), binary: false, label: 'valid msg' }),
    () => ({
      data: j({
        kind: 'msg',
        room,
        payload: b64(),
        push: r.pick([
          { payload: b64(), tag: 't' },
          { payload: 'P'.repeat(3_073) },
          'x',
          [],
          { payload: 1 },
          { payload: 'x', tag: 5 },
          null,
        ]),
      }),
      binary: false,
      label: 'msg with push',
    }),
    () => ({
      data: padTo(r.pick([16_383, 16_384, 16_385, 30_000]), room),
      binary: false,
      label: 'size boundary',
    }),
    () => ({ data: padTo(70_000, room), binary: false, label: '70,000 bytes' }),
    () => ({
      data: j({
        kind: 'push-subscribe',
        room,
        subscription: r.pick([
          null,
          'x',
          { endpoint: 1 },
          {
            endpoint: 'https://push.example.com/a',
            keys: { p256dh, auth: crypto.randomBytes(r.pick([15, 16])).toString('base64url') },
          },
          {
            endpoint: 'https://internal.corp/a',
            keys: { p256dh, auth: crypto.randomBytes(16).toString('base64url') },
          },
          { endpoint: 'http://push.example.com/a', keys: { p256dh, auth: 'x' } },
        ]),
      }),
      binary: false,
      label: 'push-subscribe',
    }),
    () => ({
      data: j({
        kind: 'push-unsubscribe',
        room,
        endpoint: r.pick(['https://push.example.com/a', 1]),
      }),
      binary: false,
      label: 'push-unsubscribe',
    }),
    () => ({
      data: Buffer.from(`{"kind":"msg","room":"${room}","payload":"QU\u0001JD"}`),
      binary: false,
      label: 'control char in payload',
    }),
    () => ({
      data: Buffer.from(`{"kind":"msg","room":"${room}","payload":"QUJD"} trailing`),
      binary: false,
      label: 'trailing garbage',
    }),
  ];
  return r.pick(cases)();
}

type Expect = { replies: string[]; close?: number };

/** What the rules require for one frame before a successful hello. */
function preHelloOracle(h: Hostile): Expect {
  if (h.data.length > 65_536) return { replies: [], close: 1009 };
  if (h.binary || h.data.length > 16_384 || !isUtf8(h.data))
    return { replies: ['error:bad-hello'], close: 1008 };
  const p = parseClientFrame(h.data);
  if (!p.ok || p.value.kind !== 'hello') return { replies: ['error:bad-hello'], close: 1008 };
  return { replies: ['hello-ok'] };
}

/** What the rules require for one frame after hello, given the rooms this socket joined. */
async function postHelloOracle(h: Hostile, joined: Map<string, string>): Promise<Expect> {
  if (h.data.length > 65_536) return { replies: [], close: 1009 };
  if (h.binary) return { replies: ['error:bad-frame'] };
  if (h.data.length > 16_384) return { replies: ['error:too-large'] };
  if (!isUtf8(h.data)) return { replies: ['error:bad-frame'] };
  const p = parseClientFrame(h.data);
  if (!p.ok) return { replies: [p.code === 'too-large' ? 'error:too-large' : 'error:bad-frame'] };
  const f = p.value;
  const role = joined.get(f.room);
  switch (f.kind) {
    case 'hello':
      if (role === undefined) {
        joined.set(f.room, f.role);
        return { replies: ['hello-ok'] };
      }
      return { replies: [role === f.role ? 'hello-ok' : 'error:bad-hello'] };
    case 'msg':
      if (role === undefined) return { replies: ['error:bad-frame'] };
      if (f.push == null) return { replies: [] };
      if (role === 'phone') return { replies: ['error:bad-frame'] };
      return { replies: ['error:push-disabled'] }; // no phone in fuzz rooms, no VAPID subject
    case 'push-subscribe': {
      if (role !== 'phone') return { replies: ['error:bad-frame'] };
      const c = await checkSubscription(f.subscription, new Set(), resolve);
      return { replies: c.ok ? [] : ['error:bad-frame'] };
    }
    case 'push-unsubscribe':
      return { replies: role === 'phone' ? [] : ['error:bad-frame'] };
  }
}

const label = (f: { kind: string; code?: unknown }) =>
  f.kind === 'error' ? `error:${String(f.code)}` : f.kind;

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({
    rateLimits: false,
    logLevel: 'warn',
    maxConnectionsPerIp: 100_000,
    maxConnections: 100_000,
    maxRoomsPerSocket: 100_000,
    maxPhonesPerRoom: 100_000,
    maxMachinesPerRoom: 100_000,
    maxSubscriptionsPerRoom: 100_000,
    resolve,
  });
});
afterAll(async () => {
  await fx.stop();
});

/** The legitimate room: machine and phone exchange numbered messages the whole time. */
async function legitimateTraffic(done: Promise<void>) {
  const room = `legit${crypto.randomBytes(8).toString('hex')}`;
  const m = await connectClient(fx.relay.url);
  await m.hello(room, 'machine');
  const p = await connectClient(fx.relay.url);
  await p.hello(room, 'phone');
  await m.nextFrame('presence');
  let sent = 0;
  const send = async () => {
    for (; sent < LEGIT_MESSAGES; sent++) {
      m.send({ kind: 'msg', room, payload: Buffer.from(`m${sent}`).toString('base64') });
      p.send({ kind: 'msg', room, payload: Buffer.from(`p${sent}`).toString('base64') });
      if (sent % 20 === 19) await Promise.race([done, new Promise((r) => setImmediate(r))]);
    }
  };
  const receive = async (c: TestClient, prefix: string) => {
    for (let i = 0; i < LEGIT_MESSAGES; i++) {
      const f = await c.nextFrame('msg');
      expect(Buffer.from(String(f.payload), 'base64').toString()).toBe(`${prefix}${i}`);
    }
  };
  await Promise.all([send(), receive(p, 'm'), receive(m, 'p')]);
  await m.close();
  await p.close();
}

describe('Bad-frame fuzz', () => {
  it('hostile frames before and after hello get exactly the replies the rules require; the legitimate room loses nothing', async () => {
    const r = prng(SEED);
    let finish!: () => void;
    const done = new Promise<void>((res) => (finish = res));
    const legit = legitimateTraffic(done);
    const pool = [
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'fuzzroom-1',
      'fuzzroom-2',
    ];

    // Before hello: one hostile frame per socket, 20 sockets at a time.
    const pre = Array.from({ length: PRE_HELLO_SOCKETS }, () =>
      hostile(r, pool, r.pick(['machine', 'phone'])),
    );
    for (let i = 0; i < pre.length; i += 20) {
      await Promise.all(
        pre.slice(i, i + 20).map(async (h) => {
          const c = await connectClient(fx.relay.url);
          const want = preHelloOracle(h);
          c.send(h.data, { binary: h.binary });
          for (const reply of want.replies)
            expect([h.label, label(await c.nextFrame())]).toEqual([h.label, reply]);
          if (want.close !== undefined)
            expect([h.label, (await c.closed).code]).toEqual([h.label, want.close]);
          else await c.close();
        }),
      );
    }

    // After hello: machines and phones in rooms of their own, each frame followed by a probe
    // (a repeated hello, answered hello-ok) so each frame's replies are read exactly.
    let frames = 0;
    await Promise.all(
      Array.from({ length: POST_HELLO_SOCKETS }, async (_, s) => {
        const role = s % 2 === 0 ? 'machine' : 'phone';
        const rs = prng(SEED + s + 1);
        // Machines and phones never share a room, so no presence crosses between fuzz sockets.
        const rooms =
          role === 'machine'
            ? ['__proto__', 'constructor', `own-m-${s}-xyz`, `m-shared-room`]
            : ['prototype', 'toString', `own-p-${s}-xyz`, `p-shared-room`];
        const home = `home-${role}-${s}-xyz`;
        let c = await connectClient(fx.relay.url);
        let joined = new Map<string, string>([[home, role]]);
        await c.hello(home, role);
        for (let i = 0; i < FRAMES_PER_SOCKET; i++) {
          const h = hostile(rs, [...rooms, home], role);
          const want = await postHelloOracle(h, joined);
          c.send(h.data, { binary: h.binary });
          frames++;
          if (want.close !== undefined) {
            expect([h.label, (await c.closed).code]).toEqual([h.label, want.close]);
            c = await connectClient(fx.relay.url);
            joined = new Map([[home, role]]);
            await c.hello(home, role);
            continue;
          }
          c.send({ kind: 'hello', room: home, role });
          const got: string[] = [];
          for (let k = 0; k < want.replies.length + 1; k++) got.push(label(await c.nextFrame()));
          expect([h.label, [...got].sort()]).toEqual([
            h.label,
            [...want.replies, 'hello-ok'].sort(),
          ]);
        }
        await c.close();
      }),
    );
    finish();
    await legit;
    expect(frames).toBe(POST_HELLO_SOCKETS * FRAMES_PER_SOCKET);
    // Still up and serving.
    const after = await connectClient(fx.relay.url);
    expect(await after.hello('still-alive-room', 'phone')).toMatchObject({ kind: 'hello-ok' });
    await after.close();
  });
});
