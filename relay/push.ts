// The Web Push leg: when a machine's msg carries `push` and the room has no (D5-live) phone
// socket, send the sealed payload — exactly as sealed, nothing added (D6) — to every stored
// subscription of the room, and tell the machine what went wrong with the spec's error codes.
// H1: a hint passes the room's and the machine IP's rate limits, waits its turn to have its
// subscriptions listed (one hint per event-loop turn, so a read full of hints does not list them
// all at once), then each of its requests takes a slot of the relay-wide push queue
// (push-queue.ts) or is refused at once; the VAPID header is reused per audience
// (vapid-jwt.ts); each request has a total deadline (push-sender.ts).
import webpush from 'web-push';
import { PUSH_TAG_PATTERN, type RelayErrorCode } from '../protocol/index.ts';
import type { Logger } from 'pino';
import type { RelaySettings } from './config.ts';
import type { PushDecision } from './push-decision.ts';
import { makePushQueue, type PushQueue } from './push-queue.ts';
import { PUSH_SEND_ERRORS, type PushSender } from './push-sender.ts';
import { makePushBuckets } from './push-buckets.ts';
import type { StoredSubscription, SubscriptionStore } from './subscriptions.ts';
import type { Timers } from './timers.ts';
import type { VapidKeys } from './vapid.ts';
import { makeVapidAuth, type VapidAuth } from './vapid-jwt.ts';

export type PushReply = (
  code: Extract<RelayErrorCode, 'push-disabled' | 'push-no-subscribers' | 'push-failed' | 'limit'>,
  message: string,
) => void;

export type PushServiceOptions = {
  store: SubscriptionStore;
  decision: PushDecision;
  sender: PushSender;
  /** Hints waiting for their subscriptions to be listed (one per turn; bounded). */
  hints: PushQueue;
  /** Requests to push services (relay-wide cap in flight, bounded waiting). */
  queue: PushQueue;
  /** Null without a contact subject: push services refuse VAPID, so push is off (push-disabled). */
  auth: VapidAuth | null;
  ttlSec: number;
  deadlineMs: number;
  rateLimits: boolean;
  pushRatePerMin: number;
  pushBurst: number;
  pushRatePerMinPerIp: number;
  pushBurstPerIp: number;
  now: () => number;
  log: Logger;
};

export type PushService = {
  /** Called for every machine msg with a push hint; `ip` is the machine socket's IP key and
   * `reply` reaches that socket. */
  onPushHint(room: string, ip: string, payload: string, tag: string | null, reply: PushReply): void;
  /** Drops rate buckets that have refilled (bounded memory). */
  prune(): void;
  /** Resolves when every push started so far has settled (tests, shutdown). */
  idle(): Promise<void>;
};

/** Why one request failed, as the machine reads it: fixed words and numbers, never a message
 * from a socket or a push service (they may quote the endpoint). */
export const QUEUE_FULL = 'relay push queue full';
const HINTS_LISTING_AT_ONCE = 64;

const endpointOrigin = (endpoint: string): string => {
  try {
    return new URL(endpoint).origin; // never the full endpoint: its path identifies the device
  } catch {
    return '(invalid)';
  }
};

/** Counts the outcomes of one hint's requests and answers the machine once, when all are in. */
function makeTally(total: number, reply: PushReply, sent: () => void) {
  let pending = total;
  const reasons = new Map<string, number>();
  return (reason: string | null) => {
    if (reason !== null) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    if (--pending > 0) return;
    if (reasons.size === 0) return sent();
    let failed = 0;
    for (const n of reasons.values()) failed += n;
    // Sorted, so one outcome always reads the same whatever order the answers came in.
    const why = [...reasons]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([r, n]) => `${r}: ${n}`)
      .join(', ');
    reply('push-failed', `push failed for ${failed} of ${total} subscriptions (${why})`);
  };
}

export function makePushService(o: PushServiceOptions): PushService {
  const buckets = makePushBuckets(o);

  async function sendOne(
    auth: VapidAuth,
    room: string,
    s: StoredSubscription,
    payload: string,
    tag: string | null,
  ) {
    const origin = endpointOrigin(s.endpoint);
    try {
      const details = webpush.generateRequestDetails(
        { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } },
        payload,
        {
          TTL: o.ttlSec,
          urgency: 'high',
          ...(tag !== null && PUSH_TAG_PATTERN.test(tag) ? { topic: tag } : {}),
          headers: { Authorization: auth.header(s.endpoint) },
        },
      );
      const { statusCode } = await o.sender({
        endpoint: details.endpoint,
        method: details.method,
        headers: details.headers as Record<string, string | number>,
        body: (details.body as Buffer | null) ?? null,
      });
      if (statusCode >= 200 && statusCode < 300) return null;
      // D7: only 404/410 mean the subscription is gone; 429, 413, 5xx keep it.
      if (statusCode === 404 || statusCode === 410) await o.store.remove(room, s.endpoint);
      o.log.warn({ room: room.slice(0, 8), origin, statusCode }, 'push refused');
      return `HTTP ${statusCode}`;
    } catch (e) {
      const code = (e as { code?: unknown }).code;
      o.log.warn({ room: room.slice(0, 8), origin, error: (e as Error).message }, 'push failed');
      if (code === PUSH_SEND_ERRORS.deadline) return `no answer within ${o.deadlineMs} ms`;
      if (code === PUSH_SEND_ERRORS.private) return 'endpoint resolves to a non-public address';
      return 'push service unreachable';
    }
  }

  async function deliver(
    auth: VapidAuth,
    room: string,
    payload: string,
    tag: string | null,
    reply: PushReply,
  ) {
    const subs = await o.store.list(room);
    if (subs.length === 0) return reply('push-no-subscribers', 'no push subscription in this room');
    const settle = makeTally(subs.length, reply, () =>
      o.log.debug({ room: room.slice(0, 8), count: subs.length }, 'push sent'),
    );
    let refused = 0;
    for (const s of subs) {
      const admitted = o.queue.offer(async () =>
        settle(await sendOne(auth, room, s, payload, tag)),
      );
      if (!admitted) refused++;
    }
    if (refused === 0) return;
    o.log.warn(
      { room: room.slice(0, 8), refused, queued: o.queue.queued() },
      'push queue full; requests refused',
    );
    for (let i = 0; i < refused; i++) settle(QUEUE_FULL);
  }

  return {
    onPushHint(room, ip, payload, tag, reply) {
      if (!o.decision.phonesAbsent(room)) return;
      const auth = o.auth;
      if (auth === null)
        return reply(
          'push-disabled',
          'Web Push is not configured on this relay (no VAPID subject)',
        );
      if (o.rateLimits) {
        const refusal = buckets.take(room, ip);
        if (refusal !== null) return reply('limit', refusal);
      }
      const taken = o.hints.offer(() =>
        deliver(auth, room, payload, tag, reply).catch((e: unknown) => {
          o.log.error(
            { room: room.slice(0, 8), error: (e as Error).message },
            'push delivery crashed',
          );
        }),
      );
      if (taken) return;
      o.log.warn({ room: room.slice(0, 8) }, 'push queue full; hint refused');
      reply('push-failed', `push failed (${QUEUE_FULL})`);
    },
    prune: () => buckets.prune(),
    async idle() {
      await o.hints.idle();
      await o.queue.idle();
    },
  };
}

/** The push service as the relay's settings configure it (server.ts). */
export function makePushServiceFor(
  s: RelaySettings,
  parts: {
    store: SubscriptionStore;
    decision: PushDecision;
    sender: PushSender;
    vapid: VapidKeys;
    timers: Timers;
    log: Logger;
  },
): PushService {
  const now = parts.timers.now;
  return makePushService({
    ...parts,
    // Listing is quick (SQLite) or one round trip (Redis): many may be under way at once.
    hints: makePushQueue({ maxActive: HINTS_LISTING_AT_ONCE, maxQueued: s.maxQueuedPushes }),
    queue: makePushQueue({ maxActive: s.maxConcurrentPushes, maxQueued: s.maxQueuedPushes }),
    auth:
      s.vapidSubject === undefined
        ? null
        : makeVapidAuth({ vapid: parts.vapid, subject: s.vapidSubject, now }),
    ttlSec: s.pushTtlSec,
    deadlineMs: s.pushTimeoutMs,
    rateLimits: s.rateLimits,
    pushRatePerMin: s.pushRatePerMin,
    pushBurst: s.pushBurst,
    pushRatePerMinPerIp: s.pushRatePerMinPerIp,
    pushBurstPerIp: s.pushBurstPerIp,
    now,
  });
}
