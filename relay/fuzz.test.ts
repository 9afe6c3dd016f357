// Bad-frame fuzz (RL6): thousands of hostile frames from many sockets, before and after
// hello, while a legitimate room keeps talking. The relay must stay up, every reply must be the
// one the rules require (an oracle derived from the rules and protocol's parser, fuzz/frames.ts),
// and the legitimate traffic must all arrive, in order. Bounded: a fixed frame count, seeded PRNG.
// The same frames at scale, against a relay process: `npm run fuzz:relay` (H11, fuzz/run.ts).
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postHelloSocket, preHelloFrame } from './fuzz/drive.ts';
import { FUZZ_RELAY_SETTINGS, prng, resolve } from './fuzz/frames.ts';
import { startFixture, type Fixture } from './test-support/relay-fixture.ts';
import { connectClient, type TestClient } from './test-support/ws-client.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261130);
const PRE_HELLO_SOCKETS = 600;
const POST_HELLO_SOCKETS = 16;
const FRAMES_PER_SOCKET = 120;
const LEGIT_MESSAGES = 400;

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture({ ...FUZZ_RELAY_SETTINGS, logLevel: 'warn', resolve });
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

    // Before hello: one hostile frame per socket, 20 sockets at a time.
    const mismatches: string[] = [];
    const pre = new Map<string, number>();
    for (let i = 0; i < PRE_HELLO_SOCKETS; i += 20) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, () => preHelloFrame(fx.relay.url, r, pre)),
      );
      for (const m of batch) if (m !== null) mismatches.push(m);
    }

    // After hello: each frame followed by a probe, so each frame's replies are read exactly.
    const driven = await Promise.all(
      Array.from({ length: POST_HELLO_SOCKETS }, (_, s) =>
        postHelloSocket(fx.relay.url, s, SEED, FRAMES_PER_SOCKET),
      ),
    );
    finish();
    await legit;
    for (const d of driven) mismatches.push(...d.mismatches);
    expect(mismatches).toEqual([]);
    // Every kind of reply the rules give was exercised.
    const post = new Map<string, number>();
    for (const d of driven) for (const [k, n] of d.expected) post.set(k, (post.get(k) ?? 0) + n);
    expect([...pre.keys()].sort()).toEqual([
      'close:1008',
      'close:1009',
      'error:bad-hello',
      'hello-ok',
    ]);
    for (const k of ['error:bad-frame', 'error:too-large', 'error:limit', 'close:1009'])
      expect(post.get(k) ?? 0, k).toBeGreaterThan(0);
    expect(driven.reduce((n, d) => n + d.frames, 0)).toBe(POST_HELLO_SOCKETS * FRAMES_PER_SOCKET);
    // Still up and serving.
    const after = await connectClient(fx.relay.url);
    expect(await after.hello('still-alive-room', 'phone')).toMatchObject({ kind: 'hello-ok' });
    await after.close();
  });
});
