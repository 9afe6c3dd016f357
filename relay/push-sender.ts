// Sends one Web Push request. web-push builds it (aes128gcm body, TTL/Urgency/Topic; the VAPID
// header comes from vapid-jwt.ts) but always speaks TLS through its own client; this client
// sends the same request and, for endpoints outside the test-only unsafe origins, connects only
// to public addresses — checked again at connect time so a DNS answer that changed since
// push-subscribe cannot reach inside. H1: each request has a total deadline on the relay's clock
// (connect, send, status line, headers and body together), not an idle timeout, so a service
// that trickles a byte now and then cannot hold a request, its socket or its queue slot.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPublicAddress } from './push-endpoint.ts';
import type { Timers } from './timers.ts';

export type PushRequest = {
  endpoint: string;
  method: string;
  headers: Record<string, string | number>;
  body: Buffer | null;
};
export type PushSender = (req: PushRequest) => Promise<{ statusCode: number }>;

/** Error codes of a failed request that push.ts tells the machine about (never its message). */
export const PUSH_SEND_ERRORS = {
  deadline: 'EPUSHDEADLINE',
  private: 'EPUSHPRIVATE',
} as const;

const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) {
      const e = Object.assign(new Error('push endpoint resolves to a non-public address'), {
        code: PUSH_SEND_ERRORS.private,
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
  /** Total deadline of one request. */
  deadlineMs: number;
  unsafeOrigins: ReadonlySet<string>;
  timers: Timers;
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
        ...(unsafe ? {} : { lookup: publicOnlyLookup }),
      });
      let statusCode: number | null = null;
      const deadline = opts.timers.setTimeout(() => {
        // Answered but the body still trickles: the status counts, the socket goes.
        if (statusCode !== null) resolve({ statusCode });
        const e = new Error(`push service did not answer within ${opts.deadlineMs} ms`);
        r.destroy(Object.assign(e, { code: PUSH_SEND_ERRORS.deadline }));
      }, opts.deadlineMs);
      const settle = () => opts.timers.clearTimeout(deadline);
      r.on('error', (e) => {
        settle();
        reject(e);
      });
      r.on('response', (res) => {
        statusCode = res.statusCode ?? 0;
        const code = statusCode;
        res.resume(); // the body is never needed; drain it so the socket is freed
        res.on('end', () => {
          settle();
          resolve({ statusCode: code });
        });
        res.on('error', (e) => {
          settle();
          reject(e);
        });
      });
      r.end(req.body ?? undefined);
    });
}
