// The hostile frames of the relay fuzz and the oracle of what the rules require for each (H11),
// shared by the small fuzz in `npm test` (relay/fuzz.test.ts) and the fuzz at scale
// (`npm run fuzz:relay`, relay/fuzz/run.ts). The oracle is derived from the rules and
// protocol's parser, not from the relay's code.
import { isUtf8 } from 'node:buffer';
import crypto from 'node:crypto';
import { parseClientFrame } from '../../protocol/index.ts';
import { checkSubscription } from '../push-endpoint.ts';

/** Rooms a socket may join beyond its home room before `limit` (D3), in every fuzz relay. */
export const FUZZ_MAX_ROOMS_PER_SOCKET = 4;

/** The fuzz relays' settings: every cap out of the way except rooms per socket, which the
 * oracle models; no rate limits (a token bucket's timing is not a frame's property). */
export const FUZZ_RELAY_SETTINGS = {
  rateLimits: false,
  maxConnectionsPerIp: 1_000_000,
  maxConnections: 1_000_000,
  maxRoomsPerSocket: FUZZ_MAX_ROOMS_PER_SOCKET,
  maxPhonesPerRoom: 1_000_000,
  maxMachinesPerRoom: 1_000_000,
  maxSubscriptionsPerRoom: 1_000_000,
  maxSubscriptionsPerIp: 1_000_000,
  maxSubscriptions: 1_000_000,
} as const;

export function prng(seed: number) {
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
export type Rng = ReturnType<typeof prng>;

export type Hostile = { data: Buffer; binary: boolean; label: string };
const j = (v: unknown) => Buffer.from(JSON.stringify(v));
const padTo = (size: number, room: string) => {
  const base = JSON.stringify({ kind: 'msg', room, payload: '' }).length;
  return Buffer.from(
    JSON.stringify({ kind: 'msg', room, payload: 'A'.repeat(Math.max(0, size - base)) }),
  );
};
/** The fuzz relays' DNS: *.example.com is public, everything else private. */
export const resolve = async (host: string): Promise<string[]> =>
  host.endsWith('.example.com') ? ['93.184.216.34'] : ['10.0.0.1'];
const p256dh = crypto.createECDH('prime256v1').generateKeys().toString('base64url');

export function hostile(r: Rng, rooms: readonly string[], role: 'machine' | 'phone'): Hostile {
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

export type Expect = { replies: string[]; close?: number };

/** What the rules require for one frame before a successful hello. */
export function preHelloOracle(h: Hostile): Expect {
  if (h.data.length > 65_536) return { replies: [], close: 1009 };
  if (h.binary || h.data.length > 16_384 || !isUtf8(h.data))
    return { replies: ['error:bad-hello'], close: 1008 };
  const p = parseClientFrame(h.data);
  if (!p.ok || p.value.kind !== 'hello') return { replies: ['error:bad-hello'], close: 1008 };
  return { replies: ['hello-ok'] };
}

/** What the rules require for one frame after hello, given the rooms this socket joined. */
export async function postHelloOracle(h: Hostile, joined: Map<string, string>): Promise<Expect> {
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
        if (joined.size >= FUZZ_MAX_ROOMS_PER_SOCKET) return { replies: ['error:limit'] };
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

export const label = (f: { kind: string; code?: unknown }) =>
  f.kind === 'error' ? `error:${String(f.code)}` : f.kind;
