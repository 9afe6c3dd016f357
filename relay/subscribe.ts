// push-subscribe (D4, D3, H2): check the endpoint, then store it within the caps — per room,
// per IP (the subscribing socket's IP key, IPv6 per /64) and in total. Refreshing a stored
// endpoint always works; only a new one must fit. Not on the forwarding path: it runs per
// push-subscribe frame, which phones send once per hello.
import crypto from 'node:crypto';
import type { PushSubscriptionJson, RelayErrorCode } from '../protocol/index.ts';
import type { Context } from './context.ts';
import { LIMITS, type LimitName } from './counters.ts';
import { checkSubscription } from './push-endpoint.ts';

/**
 * What the store keeps instead of the IP key: an HMAC of it under a key derived from the VAPID
 * private key, so the per-IP count works (replicas share the VAPID pair, so they agree) while a
 * copy of the database names no client address.
 */
export function makeIpTag(vapidPrivateKey: string): (ip: string) => string {
  const key = crypto.createHash('sha256').update(`dsh-relay/ip-tag\0${vapidPrivateKey}`).digest();
  return (ip) => crypto.createHmac('sha256', key).update(ip).digest('base64url').slice(0, 22);
}

/** `which` names the cap for /metrics (P5) when the code is `limit`. */
export type SubscribeReply = (
  code: Extract<RelayErrorCode, 'bad-frame' | 'limit'>,
  message: string,
  which?: LimitName,
) => void;

export async function subscribe(
  ctx: Context,
  room: string,
  subscription: PushSubscriptionJson,
  ip: string,
  reply: SubscribeReply,
): Promise<void> {
  const checked = await checkSubscription(subscription, ctx.unsafeOrigins, ctx.resolve);
  if (!checked.ok) return reply('bad-frame', `push-subscribe refused: ${checked.message}`);
  const s = ctx.settings;
  const outcome = await ctx.store.add(
    {
      room,
      sub: checked.sub,
      ip: ctx.ipTag(ip),
      nowMs: ctx.timers.now(),
      machinePresent: ctx.rooms.peers(room).machine > 0,
    },
    {
      perRoom: s.maxSubscriptionsPerRoom,
      perIp: s.maxSubscriptionsPerIp,
      total: s.maxSubscriptions,
    },
  );
  switch (outcome) {
    case 'limit-room':
      return reply(
        'limit',
        `at most ${s.maxSubscriptionsPerRoom} push subscriptions per room`,
        LIMITS.subscriptionsPerRoom,
      );
    case 'limit-ip':
      ctx.log.warn({ ip, max: s.maxSubscriptionsPerIp }, 'push subscription cap per IP reached');
      return reply(
        'limit',
        `at most ${s.maxSubscriptionsPerIp} push subscriptions per IP`,
        LIMITS.subscriptionsPerIp,
      );
    case 'limit-total':
      ctx.log.warn({ max: s.maxSubscriptions }, 'push subscription cap of the relay reached');
      return reply(
        'limit',
        `this relay holds its maximum of ${s.maxSubscriptions} push subscriptions`,
        LIMITS.subscriptions,
      );
  }
}
