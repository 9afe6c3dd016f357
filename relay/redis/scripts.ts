// The Lua scripts of the Redis room layer. Each runs atomically inside Redis, so "was that the
// last socket of this role on every replica?" has exactly one answer even when two replicas lose
// their last phone at the same moment: exactly one `online:false` is published.
//
// Keys (prefix `relay:`): `alive:<replica>` heartbeat (PX), `replicas` set of replica ids,
// `room:<room>` hash `<replica>:<role>` → sockets, `rooms:<replica>` set of rooms it counted in.
// `room:<room>` also holds `<replica>:live`: how many of that replica's phones are live by D5.
// Channel `ch:<room>`; a message is `<replica id, 16 chars><kind><role initial><payload>`:
// kind `b` a batch of frames (batch.ts; the sender delivered them locally already), `p` a
// presence frame for that role (every replica delivers it, the sender too), `c` the sender's
// count of that role (initial `m`, `p`, or `l` for its live phones).
// The scripts name keys they compute, so they need one Redis, not Redis Cluster (docs/scaling.md).

const TOTAL = `
local function total(p, rk, role)
  local n = 0
  local all = redis.call('HGETALL', rk)
  for i = 1, #all, 2 do
    local f = all[i]
    local sep = string.find(f, ':', 1, true)
    if string.sub(f, sep + 1) == role
      and redis.call('EXISTS', p .. 'alive:' .. string.sub(f, 1, sep - 1)) == 1 then
      n = n + tonumber(all[i + 1])
    end
  end
  return n
end
local function offline(p, origin, room, role)
  local target = 'p'
  if role == 'phone' then target = 'm' end
  redis.call('PUBLISH', p .. 'ch:' .. room, origin .. 'p' .. target ..
    '{"kind":"presence","room":"' .. room .. '","role":"' .. role .. '","online":false}')
end
local function forget_if_empty(p, rk, id, room)
  if redis.call('HEXISTS', rk, id .. ':machine') == 0 and redis.call('HEXISTS', rk, id .. ':phone') == 0
    and redis.call('HEXISTS', rk, id .. ':live') == 0 then
    redis.call('SREM', p .. 'rooms:' .. id, room)
  end
end
`;

/** ARGV: prefix, replica, room, role, local count. Announces offline when the global count hits 0. */
export const COUNT_SCRIPT = `${TOTAL}
local p, id, room, role, n = ARGV[1], ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
local rk = p .. 'room:' .. room
if n > 0 then
  redis.call('HSET', rk, id .. ':' .. role, n)
  redis.call('SADD', p .. 'rooms:' .. id, room)
else
  redis.call('HDEL', rk, id .. ':' .. role)
  forget_if_empty(p, rk, id, room)
end
redis.call('PUBLISH', p .. 'ch:' .. room, id .. 'c' .. string.sub(role, 1, 1) .. n)
if n == 0 and total(p, rk, role) == 0 then offline(p, id, room, role) end
return n
`;

/** ARGV: prefix, replica, room, live phones (D5). Stored and announced; no presence. */
export const LIVE_SCRIPT = `${TOTAL}
local p, id, room, n = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local rk = p .. 'room:' .. room
if n > 0 then
  redis.call('HSET', rk, id .. ':live', n)
  redis.call('SADD', p .. 'rooms:' .. id, room)
else
  redis.call('HDEL', rk, id .. ':live')
  forget_if_empty(p, rk, id, room)
end
redis.call('PUBLISH', p .. 'ch:' .. room, id .. 'cl' .. n)
return n
`;

/** ARGV: prefix. Forgets every replica whose heartbeat expired; returns how many. */
export const REAP_SCRIPT = `${TOTAL}
local p = ARGV[1]
local dead = 0
for _, id in ipairs(redis.call('SMEMBERS', p .. 'replicas')) do
  if redis.call('EXISTS', p .. 'alive:' .. id) == 0 then
    dead = dead + 1
    for _, room in ipairs(redis.call('SMEMBERS', p .. 'rooms:' .. id)) do
      local rk = p .. 'room:' .. room
      for _, role in ipairs({'machine', 'phone'}) do
        if redis.call('HDEL', rk, id .. ':' .. role) == 1 then
          redis.call('PUBLISH', p .. 'ch:' .. room, id .. 'c' .. string.sub(role, 1, 1) .. '0')
          if total(p, rk, role) == 0 then offline(p, id, room, role) end
        end
      end
      if redis.call('HDEL', rk, id .. ':live') == 1 then
        redis.call('PUBLISH', p .. 'ch:' .. room, id .. 'cl0')
      end
    end
    redis.call('DEL', p .. 'rooms:' .. id)
    redis.call('SREM', p .. 'replicas', id)
  end
end
return dead
`;

/** ARGV: prefix, room. The counts of live replicas, as a flat [field, count, …] list. */
export const LOAD_SCRIPT = `
local p, room = ARGV[1], ARGV[2]
local out = {}
local all = redis.call('HGETALL', p .. 'room:' .. room)
for i = 1, #all, 2 do
  local f = all[i]
  local sep = string.find(f, ':', 1, true)
  if redis.call('EXISTS', p .. 'alive:' .. string.sub(f, 1, sep - 1)) == 1 then
    out[#out + 1] = f
    out[#out + 1] = all[i + 1]
  end
end
return out
`;
