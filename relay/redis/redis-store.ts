// Push subscriptions and the VAPID key pair in Redis, so any replica can deliver a push and all
// sign with the same key (many replicas, docs/scaling.md). Redis must persist (AOF or RDB) for subscriptions to survive
// a Redis restart — docs/scaling.md. Keys (room ids have no spaces):
//   subs:<room>          hash endpoint → JSON {endpoint, p256dh, auth, createdMs, ip}
//   subs-by-time         sorted set "<room> <endpoint>" by refresh time (D7); its size is the total
//   subs-per-ip          hash IP key → how many stored entries that IP created (H2)
//   rooms-machine-seen   sorted set room → when a machine was last seen there; rooms with entries only
//   subs-unseen          sorted set "<room> <endpoint>" by creation, for rooms no machine has joined
//   vapid                string
import type { Redis } from 'ioredis';
import webpush from 'web-push';
import type {
  AddOutcome,
  Expired,
  StoredSubscription,
  SubscriptionStore,
} from '../subscriptions.ts';
import type { VapidKeys } from '../vapid.ts';

const PREFIX = 'relay:';
type Stored = StoredSubscription & { createdMs: number };

// del: deletes one entry and everything that counts it; the room leaves rooms-machine-seen with
// its last entry, so that set never outgrows the stored rooms. seen: a machine is in the room now;
// the first time, its entries leave subs-unseen.
const HELPERS = `
local function del(p, room, endpoint)
  local rk = p .. 'subs:' .. room
  local old = redis.call('HGET', rk, endpoint)
  if not old then return 0 end
  redis.call('HDEL', rk, endpoint)
  local member = room .. ' ' .. endpoint
  redis.call('ZREM', p .. 'subs-by-time', member)
  redis.call('ZREM', p .. 'subs-unseen', member)
  local ip = cjson.decode(old).ip
  if type(ip) == 'string' and redis.call('HINCRBY', p .. 'subs-per-ip', ip, -1) <= 0 then
    redis.call('HDEL', p .. 'subs-per-ip', ip)
  end
  if redis.call('HLEN', rk) == 0 then redis.call('ZREM', p .. 'rooms-machine-seen', room) end
  return 1
end
local function seen(p, room, now)
  local known = redis.call('ZSCORE', p .. 'rooms-machine-seen', room)
  redis.call('ZADD', p .. 'rooms-machine-seen', now, room)
  if not known then
    for _, e in ipairs(redis.call('HKEYS', p .. 'subs:' .. room)) do
      redis.call('ZREM', p .. 'subs-unseen', room .. ' ' .. e)
    end
  end
end
`;

// Atomic, so two replicas adding the last allowed entry at once cannot both pass a cap.
const ADD_SCRIPT = `${HELPERS}
local p, room, endpoint, value, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local maxRoom, maxIp, maxTotal = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local ip, machine = ARGV[9], ARGV[10]
local rk = p .. 'subs:' .. room
local member = room .. ' ' .. endpoint
local old = redis.call('HGET', rk, endpoint)
local v = cjson.decode(value)
local outcome = 'added'
if old then
  local o = cjson.decode(old)
  v.createdMs, v.ip = o.createdMs, o.ip
  outcome = 'refreshed'
else
  if redis.call('HLEN', rk) >= maxRoom then return 'limit-room' end
  if tonumber(redis.call('HGET', p .. 'subs-per-ip', ip) or '0') >= maxIp then return 'limit-ip' end
  if redis.call('ZCARD', p .. 'subs-by-time') >= maxTotal then return 'limit-total' end
  v.createdMs, v.ip = tonumber(now), ip
  redis.call('HINCRBY', p .. 'subs-per-ip', ip, 1)
end
redis.call('HSET', rk, endpoint, cjson.encode(v))
redis.call('ZADD', p .. 'subs-by-time', now, member)
if machine == '1' then
  seen(p, room, now)
elseif outcome == 'added' and not redis.call('ZSCORE', p .. 'rooms-machine-seen', room) then
  redis.call('ZADD', p .. 'subs-unseen', now, member)
end
return outcome
`;

const REMOVE_SCRIPT = `${HELPERS}
return del(ARGV[1], ARGV[2], ARGV[3])
`;

const SEEN_SCRIPT = `${HELPERS}
local p, now = ARGV[1], ARGV[2]
for i = 3, #ARGV do
  if redis.call('EXISTS', p .. 'subs:' .. ARGV[i]) == 1 then seen(p, ARGV[i], now) end
end
return 0
`;

// At most EXPIRE_BATCH of each kind per call, so one sweep never blocks Redis for long; the
// rest goes at the next sweep.
const EXPIRE_BATCH = 5_000;
const EXPIRE_SCRIPT = `${HELPERS}
local p, batch = ARGV[1], ARGV[5]
local function members(key, before)
  return redis.call('ZRANGEBYSCORE', p .. key, '-inf', '(' .. before, 'LIMIT', 0, batch)
end
local function delMember(m)
  local sep = string.find(m, ' ', 1, true)
  return del(p, string.sub(m, 1, sep - 1), string.sub(m, sep + 1))
end
local stale, absent, never = 0, 0, 0
for _, m in ipairs(members('subs-by-time', ARGV[2])) do stale = stale + delMember(m) end
for _, room in ipairs(members('rooms-machine-seen', ARGV[3])) do
  for _, e in ipairs(redis.call('HKEYS', p .. 'subs:' .. room)) do absent = absent + del(p, room, e) end
  redis.call('ZREM', p .. 'rooms-machine-seen', room)
end
for _, m in ipairs(members('subs-unseen', ARGV[4])) do never = never + delMember(m) end
return {stale, absent, never}
`;

/** `prefix` keeps the keys of one store apart from another's in a shared Redis (tests). */
export function makeRedisSubscriptions(cmd: Redis, prefix = PREFIX): SubscriptionStore {
  return {
    async add(n, caps) {
      const value = JSON.stringify({ ...n.sub });
      const r = await cmd.eval(
        ADD_SCRIPT,
        0,
        prefix,
        n.room,
        n.sub.endpoint,
        value,
        n.nowMs,
        caps.perRoom,
        caps.perIp,
        caps.total,
        n.ip,
        n.machinePresent ? '1' : '0',
      );
      return r as AddOutcome;
    },
    async remove(room, endpoint) {
      return (await cmd.eval(REMOVE_SCRIPT, 0, prefix, room, endpoint)) === 1;
    },
    async list(room) {
      const all = await cmd.hgetall(`${prefix}subs:${room}`);
      return Object.values(all)
        .map((v) => JSON.parse(v) as Stored)
        .sort((a, b) => a.createdMs - b.createdMs)
        .map(({ endpoint, p256dh, auth }) => ({ endpoint, p256dh, auth }));
    },
    async machineSeen(rooms, nowMs) {
      if (rooms.length > 0) await cmd.eval(SEEN_SCRIPT, 0, prefix, nowMs, ...rooms);
    },
    async expire(c): Promise<Expired> {
      const [stale, machineAbsent, neverMachine] = (await cmd.eval(
        EXPIRE_SCRIPT,
        0,
        prefix,
        c.refreshedBeforeMs,
        c.machineBeforeMs,
        c.unseenBeforeMs,
        EXPIRE_BATCH,
      )) as [number, number, number];
      return { stale, machineAbsent, neverMachine };
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
