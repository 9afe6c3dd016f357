import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

// A local stand-in for a Web Push service (plain HTTP on 127.0.0.1) for the machine's receipt
// tests. machine/ may not import relay/ (docs/architecture.md), so this is the small part of
// relay/test-support/fake-push-service.ts these tests need: answer with chosen status codes and
// count requests. The relay reaches it only through its test-only --unsafe-allow-push-origin.

export type PushService = {
  origin: string;
  /** A browser-like subscription (a real P-256 key and 16-byte auth, so web-push can encrypt). */
  subscription(id: string): {
    endpoint: string;
    expirationTime: null;
    keys: { p256dh: string; auth: string };
  };
  /** Status codes for the next requests, in order (201 once the list is empty). */
  respondWith(...statuses: number[]): void;
  /** Requests answered so far. */
  received(): number;
  /** E6: the subscription ids (`subscription(id)`) each answered request was for, in order. */
  receivedFor(): string[];
  /** Resolves once `n` requests in total have been answered (bounded). */
  answered(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

export async function startPushService(): Promise<PushService> {
  const statuses: number[] = [];
  let count = 0;
  const paths: string[] = [];
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      paths.push((req.url ?? '').replace(/^\/push\//, ''));
      res.writeHead(statuses.shift() ?? 201).end(() => {
        count++;
        for (const w of [...waiters]) w();
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    subscription(id) {
      const ecdh = crypto.createECDH('prime256v1');
      return {
        endpoint: `${origin}/push/${id}`,
        expirationTime: null,
        keys: {
          p256dh: ecdh.generateKeys().toString('base64url'),
          auth: crypto.randomBytes(16).toString('base64url'),
        },
      };
    },
    respondWith: (...s) => void statuses.push(...s),
    received: () => count,
    receivedFor: () => [...paths],
    answered(n, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (count < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`push service: ${count} of ${n} requests within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
