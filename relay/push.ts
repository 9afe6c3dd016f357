// The Web Push leg: when a machine's msg carries `push` and the room has no (D5-live) phone
// socket, send the sealed payload — exactly as sealed, nothing added (D6) — to every stored
// subscription of the room, and tell the machine what went wrong with the spec's error codes.
import webpush from 'web-push';
import { PUSH_TAG_PATTERN, type RelayErrorCode } from '../protocol/index.ts';
import type { Logger } from 'pino';
import type { PushDecision } from './push-decision.ts';
import type { PushSender } from './push-sender.ts';
import type { SubscriptionStore } from './subscriptions.ts';
import type { VapidKeys } from './vapid.ts';
import { makeBucket, take, type Bucket } from './rate-limit.ts';

export type PushReply = (
  code: Extract<RelayErrorCode, 'push-disabled' | 'push-no-subscribers' | 'push-failed' | 'limit'>,
  message: string,
) => void;

export type PushServiceOptions = {
  store: SubscriptionStore;
  decision: PushDecision;
  sender: PushSender;
  vapid: VapidKeys;
  /** Without a contact subject push services refuse VAPID: push is off (push-disabled). */
  subject: string | undefined;
  ttlSec: number;
  rateLimits: boolean;
  pushRatePerMin: number;
  pushBurst: number;
  now: () => number;
  log: Logger;
};

export type PushService = {
  /** Called for every machine msg with a push hint; `reply` reaches the machine socket. */
  onPushHint(room: string, payload: string, tag: string | null, reply: PushReply): void;
  /** Drops rate buckets that have refilled (bounded memory). */
  prune(): void;
  /** Resolves when every push started so far has settled (tests, shutdown). */
  idle(): Promise<void>;
};

const endpointOrigin = (endpoint: string): string => {
  try {
    return new URL(endpoint).origin; // never the full endpoint: its path identifies the device
  } catch {
    return '(invalid)';
  }
};

export function makePushService(o: PushServiceOptions): PushService {
  const buckets = new Map<string, Bucket>();
  const ratePerMs = o.pushRatePerMin / 60_000;
  const inflight = new Set<Promise<void>>();

  async function deliver(room: string, payload: string, tag: string | null, reply: PushReply) {
    const subs = await o.store.list(room);
    if (subs.length === 0) return reply('push-no-subscribers', 'no push subscription in this room');
    const options = {
      TTL: o.ttlSec,
      urgency: 'high' as const,
      ...(tag !== null && PUSH_TAG_PATTERN.test(tag) ? { topic: tag } : {}),
      vapidDetails: {
        subject: o.subject as string,
        publicKey: o.vapid.publicKey,
        privateKey: o.vapid.privateKey,
      },
    };
    const results = await Promise.all(
      subs.map(async (s) => {
        try {
          const details = webpush.generateRequestDetails(
            { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
            payload,
            options,
          );
          const { statusCode } = await o.sender({
            endpoint: details.endpoint,
            method: details.method,
            headers: details.headers as Record<string, string | number>,
            body: (details.body as Buffer | null) ?? null,
          });
          if (statusCode >= 200 && statusCode < 300) return true;
          // D7: only 404/410 mean the subscription is gone; 429, 413, 5xx keep it.
          if (statusCode === 404 || statusCode === 410) await o.store.remove(room, s.endpoint);
          o.log.warn(
            { room: room.slice(0, 8), origin: endpointOrigin(s.endpoint), statusCode },
            'push refused',
          );
          return false;
        } catch (e) {
          o.log.warn(
            {
              room: room.slice(0, 8),
              origin: endpointOrigin(s.endpoint),
              error: (e as Error).message,
            },
            'push failed',
          );
          return false;
        }
      }),
    );
    const failed = results.filter((r) => !r).length;
    if (failed > 0)
      reply('push-failed', `push failed for ${failed} of ${subs.length} subscriptions`);
    else o.log.debug({ room: room.slice(0, 8), count: subs.length }, 'push sent');
  }

  return {
    onPushHint(room, payload, tag, reply) {
      if (!o.decision.phonesAbsent(room)) return;
      if (o.subject === undefined)
        return reply(
          'push-disabled',
          'Web Push is not configured on this relay (no VAPID subject)',
        );
      if (o.rateLimits) {
        const now = o.now();
        let b = buckets.get(room);
        if (!b) buckets.set(room, (b = makeBucket(o.pushBurst, now)));
        if (!take(b, now, ratePerMs, o.pushBurst)) {
          return reply('limit', `push rate limit: ${o.pushRatePerMin} per minute per room`);
        }
      }
      const p = deliver(room, payload, tag, reply).catch((e: unknown) => {
        o.log.error(
          { room: room.slice(0, 8), error: (e as Error).message },
          'push delivery crashed',
        );
      });
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    },
    prune() {
      const now = o.now();
      for (const [room, b] of buckets) {
        if (b.tokens + (now - b.updatedMs) * ratePerMs >= o.pushBurst) buckets.delete(room);
      }
    },
    async idle() {
      while (inflight.size > 0) await Promise.all(inflight);
    },
  };
}
