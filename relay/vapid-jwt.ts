// H1: the VAPID Authorization header (RFC 8292) is signed once per push-service audience (the
// endpoint's origin) and reused until shortly before it expires, instead of once per request:
// web-push rebuilds a PEM key with asn1.js and makes an ECDSA signature each time, which was
// most of the CPU of a push flood. Audiences are bounded (the oldest is forgotten first): the
// endpoints, and so the origins, come from phones.
import webpush from 'web-push';
import type { VapidKeys } from './vapid.ts';

/** RFC 8292 allows at most 24 h; push services commonly reject longer. */
export const VAPID_JWT_VALIDITY_SEC = 12 * 3_600;
/** A header is renewed this long before its `exp`, so it never reaches a push service stale. */
export const VAPID_JWT_RENEW_BEFORE_SEC = 3_600;
export const MAX_VAPID_AUDIENCES = 1_024;

export type VapidAuth = {
  /** The Authorization header for a request to `endpoint`. */
  header(endpoint: string): string;
};

export function makeVapidAuth(o: {
  vapid: VapidKeys;
  subject: string;
  now: () => number;
}): VapidAuth {
  const cache = new Map<string, { header: string; renewAtMs: number }>();
  return {
    header(endpoint) {
      const audience = new URL(endpoint).origin;
      const nowMs = o.now();
      const hit = cache.get(audience);
      if (hit !== undefined && nowMs < hit.renewAtMs) return hit.header;
      const expSec = Math.floor(nowMs / 1_000) + VAPID_JWT_VALIDITY_SEC;
      const { Authorization } = webpush.getVapidHeaders(
        audience,
        o.subject,
        o.vapid.publicKey,
        o.vapid.privateKey,
        'aes128gcm',
        expSec,
      ) as { Authorization: string };
      cache.delete(audience);
      if (cache.size >= MAX_VAPID_AUDIENCES) cache.delete(cache.keys().next().value as string);
      cache.set(audience, {
        header: Authorization,
        renewAtMs: (expSec - VAPID_JWT_RENEW_BEFORE_SEC) * 1_000,
      });
      return Authorization;
    },
  };
}
