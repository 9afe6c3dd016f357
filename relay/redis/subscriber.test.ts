// The replica's own subscriber connection (subscriber.ts) against a real redis-server: messages
// streamed whole and in order, Redis restarted → closed, refused while down, reconnected with
// back-off and ready again (the caller resubscribes), a first connect that fails is final, AUTH
// from the URL, and a peer that sends bytes that are not RESP is dropped and reconnected.
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testkit/ports.ts';
import { startRedis, type TestRedis } from '../test-support/redis-server.ts';
import {
  makeSubscriber,
  parseRedisUrl,
  type Subscriber,
  type SubscriberOptions,
} from './subscriber.ts';

let redis: TestRedis;
const open: { disconnect(): void }[] = [];
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(() => {
  for (const c of open.splice(0)) c.disconnect();
});

/** A subscriber whose events are queued, so a test can wait for the next one of a kind. */
function subscriber(url: string, extra: Partial<SubscriberOptions> = {}) {
  const got: [string, Buffer][] = [];
  const events: string[] = [];
  const errors: Error[] = [];
  const waiters: [string, () => void][] = [];
  const note = (e: string) => {
    events.push(e);
    for (const [w, f] of waiters.splice(0)) {
      if (w === e) f();
      else waiters.push([w, f]);
    }
  };
  let pieces: Buffer[] = [];
  let channel = '';
  const retries: number[] = [];
  const s: Subscriber = makeSubscriber({
    url,
    retryMs: (n) => {
      retries.push(n);
      return 20;
    },
    messages: {
      messageStart(ch) {
        channel = ch.toString();
        pieces = [];
      },
      messageData: (p) => void pieces.push(Buffer.from(p)),
      messageEnd() {
        got.push([channel, Buffer.concat(pieces)]);
        note('message');
      },
      messageAbort: () => note('abort'),
    },
    onReady: () => note('ready'),
    onClose: () => note('close'),
    onError(e) {
      errors.push(e);
      note('error');
    },
    ...extra,
  });
  open.push(s);
  /** Resolves at the next `kind` event (not one already seen). */
  const next = (kind: string) => new Promise<void>((r) => waiters.push([kind, r]));
  return { s, got, events, errors, retries, next };
}

async function publisher(url: string) {
  const p = new Redis(url, { lazyConnect: true });
  await p.connect();
  open.push(p);
  return p;
}

describe('The subscriber connection speaks RESP itself (RS2)', () => {
  it('subscribes, and messages of any size arrive whole, in order, on their channel', async () => {
    const sub = subscriber(redis.url);
    await sub.s.connect();
    expect(sub.s.ready).toBe(true);
    await sub.s.subscribe('relay:in:a', 'relay:ch:b');
    const pub = await publisher(redis.url);
    const big = Buffer.alloc(300_000, 0x41);
    big.write('\r\n$5\r\n', 1000);
    await pub.publish('relay:in:a', big);
    await pub.publish('relay:ch:b', 'small');
    await pub.publish('relay:in:a', '');
    while (sub.got.length < 3) await sub.next('message');
    expect(sub.got.map(([c, m]) => [c, m.length])).toEqual([
      ['relay:in:a', 300_000],
      ['relay:ch:b', 5],
      ['relay:in:a', 0],
    ]);
    expect(sub.got[0]?.[1].equals(big)).toBe(true);
    await sub.s.unsubscribe('relay:ch:b');
    expect(await pub.publish('relay:ch:b', 'x')).toBe(0);
  });

  it('Redis restarted: close, commands refused while down, reconnect with back-off, ready again', async () => {
    const sub = subscriber(redis.url);
    await sub.s.connect();
    await sub.s.subscribe('relay:in:r');
    const closed = sub.next('close');
    await redis.down();
    await closed;
    expect(sub.s.ready).toBe(false);
    await expect(sub.s.subscribe('relay:in:r')).rejects.toMatchObject({ code: 'redis-not-ready' });
    const ready = sub.next('ready');
    await redis.up();
    await ready;
    expect(sub.retries[0]).toBe(1); // ioredis's retryStrategy numbering: attempts from 1
    // Nothing resubscribed by itself: the caller (redis-rooms) does it on ready.
    const pub = await publisher(redis.url);
    expect(await pub.publish('relay:in:r', 'lost')).toBe(0);
    await sub.s.subscribe('relay:in:r');
    const m = sub.next('message');
    expect(await pub.publish('relay:in:r', 'back')).toBe(1);
    await m;
    expect(sub.got.map(([, x]) => x.toString())).toEqual(['back']);
  });

  it('a first connection that fails rejects and is not retried', async () => {
    const port = await freePort(); // nothing listens there
    const sub = subscriber(`redis://127.0.0.1:${port}`);
    await expect(sub.s.connect()).rejects.toMatchObject({ code: 'redis-closed' });
    expect(sub.retries).toEqual([]);
    expect(sub.s.ready).toBe(false);
  });

  it('AUTH with the password from the URL; a wrong one is refused and never ready', async () => {
    const own = await startRedis();
    try {
      const admin = new Redis(own.url);
      await admin.config('SET', 'requirepass', 's3cret/pw');
      admin.disconnect();
      const url = `redis://:${encodeURIComponent('s3cret/pw')}@127.0.0.1:${own.port}`;
      const sub = subscriber(url);
      await sub.s.connect();
      await sub.s.subscribe('relay:in:auth');
      const wrong = subscriber(`redis://:nope@127.0.0.1:${own.port}`);
      await expect(wrong.s.connect()).rejects.toMatchObject({ code: 'redis-closed' });
      expect(wrong.errors.map((e) => (e as Error & { code?: string }).code)).toContain(
        'redis-refused',
      );
    } finally {
      await own.stop();
    }
  });

  it('a peer that sends what is not RESP is dropped (redis-protocol) and reconnected', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      if (connections === 1) socket.write('*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$10\r\nabc');
      if (connections === 1) socket.write('!not resp\r\n');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as net.AddressInfo;
      const sub = subscriber(`redis://127.0.0.1:${port}`);
      const err = sub.next('error');
      const readyAgain = sub.next('ready').then(() => sub.next('ready'));
      await sub.s.connect();
      await err;
      expect((sub.errors[0] as Error & { code?: string }).code).toBe('redis-protocol');
      await readyAgain;
      expect(connections).toBe(2);
      // The message cut by the drop was aborted, never delivered half.
      expect(sub.events.filter((e) => e === 'abort' || e === 'message')).toEqual(['abort']);
    } finally {
      server.close();
    }
  });

  it('reads the --redis URL as ioredis did: host, port (6379), TLS for rediss://, AUTH user and password', () => {
    expect(parseRedisUrl('redis://10.0.0.5')).toEqual({
      host: '10.0.0.5',
      port: 6379,
      secure: false,
      auth: [],
    });
    expect(parseRedisUrl('rediss://:p%40ss@redis.example:6380/2')).toEqual({
      host: 'redis.example',
      port: 6380,
      secure: true,
      auth: ['p@ss'],
    });
    expect(parseRedisUrl('redis://relay:pw@[::1]:7000')).toMatchObject({
      host: '::1',
      port: 7000,
      auth: ['relay', 'pw'],
    });
    expect(() => parseRedisUrl('http://127.0.0.1:6379')).toThrow(
      expect.objectContaining({ code: 'redis-url' }),
    );
  });
});
