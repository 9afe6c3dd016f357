// Copied verbatim from relay/test-support/fake-push-service.ts (Node folders may not import
// each other; e2e/ needs it to decrypt what the relay sends to the push service).
// A local fake Web Push service (plain HTTP on 127.0.0.1) and a fake browser subscription that
// can decrypt what the relay sent (RFC 8291 message encryption, RFC 8188 aes128gcm). Self-
// contained (node:http and node:crypto only) so other test suites can copy it verbatim.
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type PushRequestSeen = { path: string; headers: http.IncomingHttpHeaders; body: Buffer };

export type FakePushService = {
  origin: string;
  endpoint(id: string): string;
  /** Status codes for the next requests, in order (default 201 once the list is empty). */
  respondWith(...statuses: number[]): void;
  nextRequest(): Promise<PushRequestSeen>;
  received(): number;
  close(): Promise<void>;
};

export async function startFakePushService(): Promise<FakePushService> {
  const statuses: number[] = [];
  const queue: PushRequestSeen[] = [];
  const waiters: ((r: PushRequestSeen) => void)[] = [];
  let count = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const seen = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      res.writeHead(statuses.shift() ?? 201).end();
      const w = waiters.shift();
      if (w) w(seen);
      else queue.push(seen);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    endpoint: (id) => `${origin}/push/${id}`,
    respondWith: (...s) => void statuses.push(...s),
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
    close: () => new Promise((r) => server.close(() => r())),
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
