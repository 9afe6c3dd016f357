// Push subscriptions and the VAPID key pair in Redis, so any replica can deliver a push and all
// sign with the same key (issue 10). Redis must persist (AOF or RDB) for subscriptions to survive
// a Redis restart — docs/scaling.md. Keys: `subs:<room>` hash endpoint → JSON, `subs-by-time`
// sorted set "<room> <endpoint>" by refresh time (room ids have no spaces), `vapid` string.
import type { Redis } from 'ioredis';
import webpush from 'web-push';
import type { AddOutcome, StoredSubscription, SubscriptionStore } from '../subscriptions.ts';
import type { VapidKeys } from '../vapid.ts';

const PREFIX = 'relay:';
type Stored = StoredSubscription & { createdMs: number };

// Atomic, so two replicas adding the 11th endpoint at once cannot both pass the cap.
const ADD_SCRIPT = `
local p, room, endpoint, value, now, max = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], tonumber(ARGV[6])
local rk = p .. 'subs:' .. room
local old = redis.call('HGET', rk, endpoint)
local v = cjson.decode(value)
local outcome = 'added'
if old then
  v.createdMs = cjson.decode(old).createdMs
  outcome = 'refreshed'
elseif redis.call('HLEN', rk) >= max then
  return 'limit'
end
redis.call('HSET', rk, endpoint, cjson.encode(v))
redis.call('ZADD', p .. 'subs-by-time', now, room .. ' ' .. endpoint)
return outcome
`;

const EXPIRE_SCRIPT = `
local p, before = ARGV[1], ARGV[2]
local gone = redis.call('ZRANGEBYSCORE', p .. 'subs-by-time', '-inf', '(' .. before)
for _, m in ipairs(gone) do
  local sep = string.find(m, ' ', 1, true)
  redis.call('HDEL', p .. 'subs:' .. string.sub(m, 1, sep - 1), string.sub(m, sep + 1))
  redis.call('ZREM', p .. 'subs-by-time', m)
end
return #gone
`;

export function makeRedisSubscriptions(cmd: Redis): SubscriptionStore {
  return {
    async add(room, sub, nowMs, maxPerRoom) {
      const value = JSON.stringify({ ...sub, createdMs: nowMs });
      const r = await cmd.eval(ADD_SCRIPT, 0, PREFIX, room, sub.endpoint, value, nowMs, maxPerRoom);
      return r as AddOutcome;
    },
    async remove(room, endpoint) {
      const [n] = (await cmd
        .multi()
        .hdel(`${PREFIX}subs:${room}`, endpoint)
        .zrem(`${PREFIX}subs-by-time`, `${room} ${endpoint}`)
        .exec()) as [[Error | null, number]];
      return n[1] > 0;
    },
    async list(room) {
      const all = await cmd.hgetall(`${PREFIX}subs:${room}`);
      return Object.values(all)
        .map((v) => JSON.parse(v) as Stored)
        .sort((a, b) => a.createdMs - b.createdMs)
        .map(({ endpoint, p256dh, auth }) => ({ endpoint, p256dh, auth }));
    },
    async expire(beforeMs) {
      return (await cmd.eval(EXPIRE_SCRIPT, 0, PREFIX, beforeMs)) as number;
    },
    close: () => undefined,
  };
}

/** The first replica ever to start creates the pair (SET NX); every other one reads it. */
export async function loadOrCreateRedisVapid(cmd: Redis): Promise<VapidKeys> {
  const key = `${PREFIX}vapid`;
  await cmd.set(key, JSON.stringify(webpush.generateVAPIDKeys()), 'NX');
  const raw = await cmd.get(key);
  const parsed = JSON.parse(raw ?? 'null') as Partial<VapidKeys> | null;
  if (typeof parsed?.publicKey !== 'string' || typeof parsed.privateKey !== 'string')
    throw new Error(`Redis key ${key} is not a VAPID key pair; refusing to replace it`);
  return { publicKey: parsed.publicKey, privateKey: parsed.privateKey };
}

/** After Redis lost its data: put the pair every replica already signs with back (never a new one). */
export const restoreRedisVapid = (cmd: Redis, keys: VapidKeys): Promise<unknown> =>
  cmd.set(`${PREFIX}vapid`, JSON.stringify(keys), 'NX');
