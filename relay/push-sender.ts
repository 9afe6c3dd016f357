// Sends one Web Push request. web-push builds it (aes128gcm body, VAPID JWT, TTL/Urgency/Topic)
// but always speaks TLS through its own client; this client sends the same request and, for
// endpoints outside the test-only unsafe origins, connects only to public addresses — checked
// again at connect time so a DNS answer that changed since push-subscribe cannot reach inside.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from './push-endpoint.ts';

export type PushRequest = {
  endpoint: string;
  method: string;
  headers: Record<string, string | number>;
  body: Buffer | null;
};
export type PushSender = (req: PushRequest) => Promise<{ statusCode: number }>;

const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) {
      const e = Object.assign(new Error('push endpoint resolves to a non-public address'), {
        code: 'EPUSHPRIVATE',
      });
      return callback(e, '', 4);
    }
    if (options.all)
      return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    const first = list[0] as dns.LookupAddress;
    callback(null, first.address, first.family);
  });
};

export function makeHttpPushSender(opts: {
  timeoutMs: number;
  unsafeOrigins: ReadonlySet<string>;
}): PushSender {
  return (req) =>
    new Promise((resolve, reject) => {
      const url = new URL(req.endpoint);
      const unsafe = opts.unsafeOrigins.has(url.origin);
      if (!unsafe && url.protocol !== 'https:')
        return reject(new Error('push endpoint must be https'));
      const client = url.protocol === 'https:' ? https : http;
      const r = client.request(url, {
        method: req.method,
        headers: req.headers,
        timeout: opts.timeoutMs,
        ...(unsafe ? {} : { lookup: publicOnlyLookup }),
      });
      r.on('timeout', () =>
        r.destroy(new Error(`push service did not answer within ${opts.timeoutMs} ms`)),
      );
      r.on('error', reject);
      r.on('response', (res) => {
        res.resume(); // the body is never needed; drain it so the socket is freed
        res.on('end', () => resolve({ statusCode: res.statusCode ?? 0 }));
        res.on('error', reject);
      });
      r.end(req.body ?? undefined);
    });
}
