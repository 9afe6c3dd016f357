// A local fake Web Push service (plain HTTP on 127.0.0.1) and a fake browser subscription that
// can decrypt what the relay sent (RFC 8291 message encryption, RFC 8188 aes128gcm). The relay
// reaches it only through its test-only unsafe push origin (D4); the relay's and the machine's
// tests share it.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type PushRequestSeen = { path: string; headers: http.IncomingHttpHeaders; body: Buffer };

/** How the service answers: at once; after `ms`; not until release(); or never, writing its
 * status line one byte every `everyMs` (a service that trickles to hold the sender). */
export type FakePushMode =
  | { kind: 'normal' }
  | { kind: 'delay'; ms: number }
  | { kind: 'hold' }
  | { kind: 'trickle'; everyMs: number };

export type FakePushService = {
  origin: string;
  endpoint(id: string): string;
  /** Status codes for the next requests, in order (default 201 once the list is empty). */
  respondWith(...statuses: number[]): void;
  /** From the next request on (default normal). */
  setMode(mode: FakePushMode): void;
  /** Answers every held request and goes back to answering at once. */
  release(): void;
  /** Resolves once `n` requests are held (mode hold). */
  held(n: number): Promise<void>;
  /** Resolves once `n` bytes have been trickled in total (mode trickle). */
  trickled(n: number): Promise<void>;
  /** Resolves once no request is unanswered and open. */
  drained(): Promise<void>;
  /** Requests received and not yet answered, now and at most. */
  inFlight(): number;
  maxInFlight(): number;
  nextRequest(): Promise<PushRequestSeen>;
  /** Requests received so far (answered or not). */
  received(): number;
  /** E6: the subscription ids (`subscription(id)`) of the requests received so far, in order. */
  receivedFor(): string[];
  /** Requests whose answer has been written out so far. */
  answeredCount(): number;
  /** Resolves once `n` requests in total have been answered (bounded). */
  answered(n: number, timeoutMs?: number): Promise<void>;
  /** A browser-like subscription at endpoint(id) (a real P-256 key and 16-byte auth). */
  subscription(id: string): FakeSubscriber['subscription'];
  close(): Promise<void>;
};

const TRICKLED_STATUS = 'HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n';

export async function startFakePushService(): Promise<FakePushService> {
  const statuses: number[] = [];
  const queue: PushRequestSeen[] = [];
  const waiters: ((r: PushRequestSeen) => void)[] = [];
  let count = 0;
  const receivedIds: string[] = [];
  let answeredCount = 0;
  let mode: FakePushMode = { kind: 'normal' };
  let holding: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let trickledBytes = 0;
  const timers = new Set<NodeJS.Timeout>();
  const conditions: { test: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const c of [...conditions])
      if (c.test()) {
        conditions.splice(conditions.indexOf(c), 1);
        c.resolve();
      }
  };
  const when = (test: () => boolean) =>
    new Promise<void>((resolve) => {
      conditions.push({ test, resolve });
      check();
    });
  const later = (fn: () => void, ms: number) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
    return t;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const seen = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      receivedIds.push(seen.path.replace(/^\/push\//, ''));
      const status = statuses.shift() ?? 201;
      let answered = false;
      const answer = () => {
        if (answered) return;
        answered = true;
        inFlight--;
        if (!res.destroyed)
          res.writeHead(status).end(() => {
            answeredCount++;
            check();
          });
      };
      res.on('close', () => {
        if (!answered) {
          answered = true;
          inFlight--;
        }
        check();
      });
      if (mode.kind === 'normal') answer();
      else if (mode.kind === 'delay') later(answer, mode.ms);
      else if (mode.kind === 'hold') holding.push(answer);
      else {
        const every = mode.everyMs;
        let i = 0;
        const drip = () => {
          if (res.destroyed || i >= TRICKLED_STATUS.length) return;
          req.socket.write(TRICKLED_STATUS[i++] as string);
          trickledBytes++;
          check();
          later(drip, every);
        };
        drip();
      }
      const w = waiters.shift();
      if (w) w(seen);
      else queue.push(seen);
      check();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    endpoint: (id) => `${origin}/push/${id}`,
    respondWith: (...s) => void statuses.push(...s),
    setMode(m) {
      mode = m;
    },
    release() {
      mode = { kind: 'normal' };
      const h = holding;
      holding = [];
      for (const answer of h) answer();
    },
    held: (n) => when(() => holding.length >= n),
    trickled: (n) => when(() => trickledBytes >= n),
    drained: () => when(() => inFlight === 0),
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    nextRequest() {
      const r = queue.shift();
      if (r) return Promise.resolve(r);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error('no push request within 5000 ms')), 5_000);
        waiters.push((got) => {
          clearTimeout(t);
          resolve(got);
        });
      });
    },
    received: () => count,
    receivedFor: () => [...receivedIds],
    answeredCount: () => answeredCount,
    answered(n, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`push service: ${answeredCount} of ${n} answered in ${timeoutMs} ms`)),
          timeoutMs,
        );
        void when(() => answeredCount >= n).then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    subscription: (id) => makeFakeSubscriber(`${origin}/push/${id}`).subscription,
    close() {
      for (const t of timers) clearTimeout(t);
      for (const answer of holding) answer();
      holding = [];
      server.closeAllConnections();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

export type FakeSubscriber = {
  subscription: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  /** Decrypts an aes128gcm Web Push body addressed to this subscriber. */
  decrypt(body: Buffer): Buffer;
};

const hmac = (key: Buffer, data: Buffer) => crypto.createHmac('sha256', key).update(data).digest();

export function makeFakeSubscriber(endpoint: string): FakeSubscriber {
  const ecdh = crypto.createECDH('prime256v1');
  const uaPublic = ecdh.generateKeys();
  const auth = crypto.randomBytes(16);
  return {
    subscription: {
      endpoint,
      expirationTime: null,
      keys: { p256dh: uaPublic.toString('base64url'), auth: auth.toString('base64url') },
    },
    decrypt(body) {
      const salt = body.subarray(0, 16);
      const rs = body.readUInt32BE(16);
      const idLen = body[20] as number;
      const asPublic = body.subarray(21, 21 + idLen);
      const ciphertext = body.subarray(21 + idLen);
      if (ciphertext.length > rs) throw new Error('multi-record bodies are not used by Web Push');
      const ecdhSecret = ecdh.computeSecret(asPublic);
      const prkKey = hmac(auth, ecdhSecret);
      const keyInfo = Buffer.concat([
        Buffer.from('WebPush: info\0'),
        uaPublic,
        asPublic,
        Buffer.from([1]),
      ]);
      const ikm = hmac(prkKey, keyInfo);
      const prk = hmac(salt, ikm);
      const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
      const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
      const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
      decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
      const padded = Buffer.concat([
        decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
        decipher.final(),
      ]);
      let end = padded.length - 1;
      while (end >= 0 && padded[end] === 0) end--;
      if (padded[end] !== 2) throw new Error('missing the last-record padding delimiter');
      return padded.subarray(0, end);
    },
  };
}
