// The spec's "Relay enforcement details" and "Transport envelope", one test per rule, against a
// real relay on port 0 and real ws clients.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newRoom, startFixture, type Fixture } from './test-support/relay-fixture.ts';

let fx: Fixture;
beforeEach(async () => {
  fx = await startFixture();
});
afterEach(async () => {
  await fx.stop();
});

const msg = (room: string, payload = 'c2VhbGVk', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ kind: 'msg', room, payload, ...extra });

describe('First-frame rule: before hello any invalid frame gets bad-hello and close 1008', () => {
  it.each([
    ['bad JSON', '{"kind":"hello",'],
    ['a JSON array', '[1,2]'],
    ['the wrong kind', JSON.stringify({ kind: 'msg', room: 'abcdefgh', payload: 'x' })],
    ['an unknown kind', JSON.stringify({ kind: 'nope' })],
    ['a bad room id', JSON.stringify({ kind: 'hello', room: 'bad room!', role: 'phone' })],
    ['a bad role', JSON.stringify({ kind: 'hello', room: 'abcdefgh', role: 'admin' })],
    [
      'an oversized hello (16 KiB + 1)',
      JSON.stringify({ kind: 'hello', room: 'abcdefgh', role: 'phone', pad: 'x'.repeat(16_384) }),
    ],
  ])('%s', async (_name, frame) => {
    const c = await fx.client();
    c.send(frame);
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-hello' });
    expect((await c.closed).code).toBe(1008);
  });

  it('a binary frame (D1)', async () => {
    const c = await fx.client();
    c.send(Buffer.from(JSON.stringify({ kind: 'hello', room: 'abcdefgh', role: 'phone' })), {
      binary: true,
    });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-hello' });
    expect((await c.closed).code).toBe(1008);
  });

  it('invalid UTF-8', async () => {
    const c = await fx.client();
    c.send(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]));
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-hello' });
    expect((await c.closed).code).toBe(1008);
  });

  it('D1: over 64 KiB the transport closes with 1009', async () => {
    const c = await fx.client();
    c.send('x'.repeat(65_537));
    expect((await c.closed).code).toBe(1009);
  });

  it('D2: no hello within 5 s closes with 1008', async () => {
    const c = await fx.client();
    fx.timers.advance(4_999);
    await c.expectNoFrame();
    fx.timers.advance(1);
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-hello' });
    expect((await c.closed).code).toBe(1008);
  });

  it('P9: a hello that reached the relay before its deadline fired is read before the deadline is judged', async () => {
    const c = await fx.client();
    const room = newRoom();
    c.send({ kind: 'hello', room, role: 'phone' }); // on loopback: in the relay's kernel buffer now
    fx.timers.advance(5_000); // the deadline fires before the relay's loop has read it
    expect(await c.nextFrame('hello-ok')).toMatchObject({ kind: 'hello-ok' });
    await c.expectNoFrame();
    expect(await c.hello(room, 'phone')).toMatchObject({ kind: 'hello-ok' });
  });

  it('D2: a hello in time cancels the deadline', async () => {
    const c = await fx.client();
    await c.hello(newRoom(), 'phone');
    fx.timers.advance(10_000);
    await c.expectNoFrame();
  });
});

describe('hello', () => {
  it('hello-ok carries the peer counts including the new socket', async () => {
    const room = newRoom();
    const m = await fx.client();
    expect(await m.hello(room, 'machine')).toEqual({
      kind: 'hello-ok',
      peers: { machine: 1, phone: 0 },
    });
    const p = await fx.client();
    expect(await p.hello(room, 'phone')).toEqual({
      kind: 'hello-ok',
      peers: { machine: 1, phone: 1 },
    });
  });

  it('more hellos on one socket join more rooms', async () => {
    const [r1, r2] = [newRoom(), newRoom()];
    const p = await fx.client();
    await p.hello(r1, 'phone');
    await p.hello(r2, 'phone');
    const m2 = await fx.client();
    await m2.hello(r2, 'machine');
    await p.nextFrame('presence');
    m2.send(msg(r2, 'AAAA'));
    expect(JSON.parse(await p.nextRaw())).toMatchObject({ room: r2, payload: 'AAAA' });
  });

  it('the same socket joining one room in both roles gets bad-hello without close', async () => {
    const room = newRoom();
    const c = await fx.client();
    await c.hello(room, 'machine');
    c.send({ kind: 'hello', room, role: 'phone' });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-hello' });
    c.send(msg(room));
    await c.expectNoFrame(); // still open, still joined as machine
    expect(fx.relay.connections()).toBe(1);
  });

  it('a repeated hello for the same (room, role) replays hello-ok with no duplicate presence', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p = await fx.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    expect(await p.hello(room, 'phone')).toEqual({
      kind: 'hello-ok',
      peers: { machine: 1, phone: 1 },
    });
    await m.expectNoFrame();
  });

  it('after hello an invalid hello gets bad-frame and the socket stays open', async () => {
    const c = await fx.client();
    await c.hello(newRoom(), 'phone');
    c.send({ kind: 'hello', room: 'x', role: 'phone' });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
    await c.hello(newRoom(), 'phone');
  });
});

describe('after hello: malformed frames get bad-frame and the socket stays open', () => {
  it.each([
    ['malformed JSON', '{"kind":'],
    [
      'an unknown kind (forward compatibility)',
      JSON.stringify({ kind: 'future-thing', room: 'abcdefgh' }),
    ],
    ['a non-object', '"msg"'],
    ['a msg without payload', JSON.stringify({ kind: 'msg', room: 'abcdefgh' })],
    ['invalid UTF-8', Buffer.from([0x22, 0xff, 0x22])],
  ])('%s', async (_name, frame) => {
    const room = newRoom();
    const c = await fx.client();
    await c.hello(room, 'phone');
    c.send(frame);
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
    expect(await c.hello(room, 'phone')).toMatchObject({ kind: 'hello-ok' });
  });

  it('invalid UTF-8 in the payload of a canonical msg for a joined room gets bad-frame and is not forwarded; valid non-ASCII is forwarded verbatim', async () => {
    // The hot path skips the separate UTF-8 pass only for all-ASCII frames: bytes >= 0x80 at the
    // start, in the 16-byte vectors, and in the last bytes of a payload must still be checked.
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p = await fx.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    const frame = (payload: Buffer) =>
      Buffer.concat([
        Buffer.from(`{"kind":"msg","room":"${room}","payload":"`),
        payload,
        Buffer.from('"}'),
      ]);
    const bad = [Buffer.from([0xc3, 0x28]), Buffer.from([0xff]), Buffer.from([0xed, 0xa0, 0x80])];
    for (const b of bad) {
      for (const [before, after] of [
        [0, 200],
        [100, 100],
        [200, 0],
        [3, 1],
      ] as const) {
        m.send(frame(Buffer.concat([Buffer.alloc(before, 0x41), b, Buffer.alloc(after, 0x41)])));
        expect(await m.nextFrame('error')).toEqual({
          kind: 'error',
          code: 'bad-frame',
          message: 'frame is not valid UTF-8',
        });
      }
    }
    const ok = frame(Buffer.from(`${'A'.repeat(100)}é${'A'.repeat(100)}`));
    m.send(ok);
    expect(await p.nextRaw()).toBe(ok.toString('utf8'));
    await m.expectNoFrame();
  });

  it('D1: a binary frame after hello gets bad-frame', async () => {
    const room = newRoom();
    const c = await fx.client();
    await c.hello(room, 'phone');
    c.send(Buffer.from(msg(room)), { binary: true });
    expect(await c.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
    expect(await c.hello(room, 'phone')).toMatchObject({ kind: 'hello-ok' });
  });

  it('msg for a room the socket never joined gets bad-frame ("not joined to this room")', async () => {
    const c = await fx.client();
    await c.hello(newRoom(), 'machine');
    c.send(msg(newRoom()));
    expect(await c.nextFrame('error')).toEqual({
      kind: 'error',
      code: 'bad-frame',
      message: 'not joined to this room',
    });
  });
});

describe('msg forwarding', () => {
  it('is forwarded verbatim to every socket of the other role, never back to the sender role', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const [p1, p2] = [await fx.client(), await fx.client()];
    await p1.hello(room, 'phone');
    await p2.hello(room, 'phone');
    await m.nextFrame('presence');
    await m.nextFrame('presence');
    await p1.expectNoFrame(); // phones hear only machine presence
    // Odd spacing and key order: the slow path must still forward the exact bytes.
    const odd = `{ "room":"${room}", "kind":"msg", "payload":"QUJD", "push":null, "future":{"x":[1,2]} }`;
    m.send(odd);
    expect(await p1.nextRaw()).toBe(odd);
    expect(await p2.nextRaw()).toBe(odd);
    const canonical = msg(room, 'REVG', { push: null });
    m.send(canonical);
    expect(await p1.nextRaw()).toBe(canonical);
    expect(await p2.nextRaw()).toBe(canonical);
    await m.expectNoFrame();
  });

  it('phone → machine is forwarded verbatim too', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p = await fx.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    const f = msg(room, 'cGhvbmU=');
    p.send(f);
    expect(await m.nextRaw()).toBe(f);
  });

  it('D6: the push field is stripped before phones receive the msg (fast and slow path)', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p = await fx.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    m.send(msg(room, 'QUJD', { push: { payload: 'UFVTSA==', tag: 'approval-1' } }));
    expect(await p.nextRaw()).toBe(msg(room, 'QUJD'));
    m.send(
      `{"kind":"msg","push":{"payload":"UFVTSA==","tag":"t"},"room":"${room}","payload":"QUJD","x":1}`,
    );
    expect(JSON.parse(await p.nextRaw())).toEqual({ kind: 'msg', room, payload: 'QUJD', x: 1 });
  });

  it('a push hint from a phone socket gets bad-frame and is not forwarded', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p = await fx.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    p.send(msg(room, 'QUJD', { push: { payload: 'UFVTSA==' } }));
    expect(await p.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
    await m.expectNoFrame();
  });
});

describe('Presence semantics', () => {
  it('online:true on every join of a role; online:false only when the LAST socket of that role leaves', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p1 = await fx.client();
    await p1.hello(room, 'phone');
    expect(await m.nextFrame('presence')).toEqual({
      kind: 'presence',
      room,
      role: 'phone',
      online: true,
    });
    const p2 = await fx.client();
    await p2.hello(room, 'phone');
    expect(await m.nextFrame('presence')).toEqual({
      kind: 'presence',
      room,
      role: 'phone',
      online: true,
    });
    await p1.close();
    await m.expectNoFrame();
    await p2.close();
    expect(await m.nextFrame('presence')).toEqual({
      kind: 'presence',
      room,
      role: 'phone',
      online: false,
    });
  });

  it('phones hear the machine come and go', async () => {
    const room = newRoom();
    const p = await fx.client();
    await p.hello(room, 'phone');
    const m = await fx.client();
    await m.hello(room, 'machine');
    expect(await p.nextFrame('presence')).toEqual({
      kind: 'presence',
      room,
      role: 'machine',
      online: true,
    });
    await m.close();
    expect(await p.nextFrame('presence')).toEqual({
      kind: 'presence',
      room,
      role: 'machine',
      online: false,
    });
  });

  it('a socket in two rooms leaves both when it closes', async () => {
    const [r1, r2] = [newRoom(), newRoom()];
    const [m1, m2] = [await fx.client(), await fx.client()];
    await m1.hello(r1, 'machine');
    await m2.hello(r2, 'machine');
    const p = await fx.client();
    await p.hello(r1, 'phone');
    await p.hello(r2, 'phone');
    await m1.nextFrame('presence');
    await m2.nextFrame('presence');
    await p.close();
    expect(await m1.nextFrame('presence')).toMatchObject({ room: r1, online: false });
    expect(await m2.nextFrame('presence')).toMatchObject({ room: r2, online: false });
  });
});

describe('D1: size caps on the message bytes before JSON parsing', () => {
  it('a data frame of 16384 bytes is forwarded; 16385 gets too-large and the socket stays open', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p = await fx.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    const base = msg(room, '').length;
    const exact = msg(room, 'A'.repeat(16_384 - base));
    expect(Buffer.byteLength(exact)).toBe(16_384);
    m.send(exact);
    expect(await p.nextRaw()).toBe(exact);
    m.send(msg(room, 'A'.repeat(16_385 - base)));
    expect(await m.nextFrame('error')).toMatchObject({ code: 'too-large' });
    await p.expectNoFrame();
    m.send('{'.repeat(20_000)); // under the transport cap, not JSON: the size rule comes first
    expect(await m.nextFrame('error')).toMatchObject({ code: 'too-large' });
  });

  it('push.payload of 3072 bytes passes; 3073 gets too-large', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    const p = await fx.client();
    await p.hello(room, 'phone');
    await m.nextFrame('presence');
    m.send(msg(room, 'QUJD', { push: { payload: 'A'.repeat(3_072) } }));
    expect(await p.nextRaw()).toBe(msg(room, 'QUJD'));
    m.send(msg(room, 'QUJD', { push: { payload: 'A'.repeat(3_073) } }));
    expect(await m.nextFrame('error')).toMatchObject({ code: 'too-large' });
    await p.expectNoFrame();
  });
});

describe('Push authorization', () => {
  const sub = {
    endpoint: 'https://push.example.com/x',
    keys: {
      p256dh: Buffer.alloc(65, 4).toString('base64url'),
      auth: Buffer.alloc(16, 1).toString('base64url'),
    },
  };
  it('push-subscribe from a socket joined to that room as machine gets bad-frame', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    m.send({ kind: 'push-subscribe', room, subscription: sub });
    expect(await m.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
  });
  it('push-subscribe for a room the socket never joined gets bad-frame', async () => {
    const p = await fx.client();
    await p.hello(newRoom(), 'phone');
    p.send({ kind: 'push-subscribe', room: newRoom(), subscription: sub });
    expect(await p.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
  });
  it('push-unsubscribe from a machine socket gets bad-frame', async () => {
    const room = newRoom();
    const m = await fx.client();
    await m.hello(room, 'machine');
    m.send({ kind: 'push-unsubscribe', room, endpoint: sub.endpoint });
    expect(await m.nextFrame('error')).toMatchObject({ code: 'bad-frame' });
  });
  it('D3: __proto__ is a valid room id and behaves like any other', async () => {
    const m = await fx.client();
    expect(await m.hello('__proto__', 'machine')).toMatchObject({
      peers: { machine: 1, phone: 0 },
    });
    const p = await fx.client();
    expect(await p.hello('__proto__', 'phone')).toMatchObject({ peers: { machine: 1, phone: 1 } });
    await m.nextFrame('presence');
    m.send(msg('__proto__'));
    expect(await p.nextRaw()).toBe(msg('__proto__'));
    const q = await fx.client();
    expect(await q.hello('constructor', 'phone')).toMatchObject({
      peers: { machine: 0, phone: 1 },
    });
  });
});
