// Rooms and presence shared by many relay replicas through one Redis (issue 10). Each replica
// keeps its own sockets in memory exactly like the in-process Rooms, and adds: one pub/sub
// channel per room, subscribed only while it holds a socket of that room (or one is joining);
// its per-room socket counts in Redis under a heartbeat key that expires when it dies; and a
// cache of the other replicas' counts (loaded on subscribe, then kept by their `c` messages) so
// hello-ok's peers are global without a round trip per hello. Frames go out verbatim.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { encodeFrame } from '../../protocol/index.ts';
import type { Presence } from '../presence.ts';
import { makeLocalPushDecision, type PushDecision } from '../push-decision.ts';
import { otherRole, type Peer, type Peers, type Role, type Rooms } from '../rooms.ts';
import type { Timers } from '../timers.ts';
import { COUNT_SCRIPT, LOAD_SCRIPT, REAP_SCRIPT } from './scripts.ts';

const PREFIX = 'relay:';
const CHANNEL = `${PREFIX}ch:`;
const ID_CHARS = 16;
const HEADER_BYTES = ID_CHARS + 2;
/** A heartbeat key lives this many intervals: one missed beat is not death. */
export const HEARTBEAT_TTL_INTERVALS = 3;
const RETRY_MAX_MS = 500;

type Entry = {
  machine: Set<Peer>;
  phone: Set<Peer>;
  /** Other replicas' counts, by replica id. */
  remote: Map<string, Peers>;
  loaded: boolean;
  waiters: (() => void)[];
};

export type RedisRoomsOptions = { url: string; heartbeatMs: number; timers: Timers; log: Logger };
export type RedisRooms = {
  rooms: Rooms;
  presence: Presence;
  /** The command connection, for the subscription store and the VAPID key. */
  command: Redis;
  /**
   * "No phone socket in the room", globally: D5's silence rule for this replica's own phones,
   * the other replicas' counts (each of them terminates its own silent sockets by ping).
   */
  pushDecision(now: () => number, pingIntervalMs: number): PushDecision;
  replicaId: string;
  /** null when healthy, else why not (for /healthz). */
  health(): string | null;
  /** Runs after every reconnect, before the replica reports healthy again. */
  afterReconnect(f: () => Promise<unknown>): void;
  start(): Promise<void>;
};

const roleOf = (byte: number): Role => (byte === 0x6d ? 'machine' : 'phone');

export function makeRedisRooms(o: RedisRoomsOptions): RedisRooms {
  const id = randomBytes(ID_CHARS / 2).toString('hex');
  // While Redis is down, commands fail at once instead of queueing without bound (local
  // delivery goes on; cross-replica frames of that moment are lost, never replayed late), and an
  // unanswered PUBLISH is never resent after a reconnect (it may have run: no duplicates).
  const connOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    autoResubscribe: false, // resubscribed below, so health can wait for it
    maxRetriesPerRequest: 0,
    retryStrategy: (times: number) => Math.min(times * 50, RETRY_MAX_MS),
  };
  const cmd = new Redis(o.url, connOptions);
  const sub = new Redis(o.url, connOptions);
  let started = false;
  let cmdReady = false;
  let subReady = false;
  const afterReconnect: (() => Promise<unknown>)[] = [];
  const rooms = new Map<string, Entry>();
  const header = { machine: Buffer.from(`${id}fm`), phone: Buffer.from(`${id}fp`) };
  const ttlMs = o.heartbeatMs * HEARTBEAT_TTL_INTERVALS;
  let beat: NodeJS.Timeout | null = null;
  let pending = new Set<Promise<unknown>>();

  // Errors name the operation and Redis's message only: never a frame or a room id in full.
  const track = (what: string, p: Promise<unknown>) => {
    const q = p.catch((e: unknown) =>
      o.log.error({ error: (e as Error).message, op: what }, 'redis operation failed'),
    );
    pending.add(q);
    void q.finally(() => pending.delete(q));
    return q;
  };
  cmd.on('close', () => (cmdReady = false));
  sub.on('close', () => (subReady = false));
  // After a reconnect (Redis restarted, maybe empty): put back this replica's heartbeat and
  // counts, the shared VAPID key, and every channel it listens to; only then report healthy.
  cmd.on('ready', () => {
    if (!started) return;
    const counts = [...rooms].flatMap(([room, e]) =>
      (['machine', 'phone'] as const)
        .filter((role) => e[role].size > 0)
        .map((role) => publishCount(room, role, e[role].size)),
    );
    void Promise.all([
      heartbeat(),
      ...counts,
      ...afterReconnect.map((f) => track('restore', f())),
    ]).then(() => (cmdReady = cmd.status === 'ready'));
  });
  sub.on('ready', () => {
    if (!started) return;
    const channels = [...rooms.keys()].map((r) => CHANNEL + r);
    const done = channels.length === 0 ? Promise.resolve() : sub.subscribe(...channels);
    void track('resubscribe', done).then(() => (subReady = sub.status === 'ready'));
  });
  for (const [name, conn] of [
    ['commands', cmd],
    ['subscriber', sub],
  ] as const)
    conn.on('error', (e: Error) =>
      o.log.warn({ error: e.message, connection: name }, 'redis connection error'),
    );

  const deliver = (e: Entry, role: Role, data: Buffer) => {
    for (const p of e[role]) p.send(data);
  };
  sub.on('messageBuffer', (channel: Buffer, message: Buffer) => {
    const e = rooms.get(channel.toString('latin1', CHANNEL.length));
    if (e === undefined || message.length < HEADER_BYTES) return;
    const origin = message.toString('latin1', 0, ID_CHARS);
    const kind = message[ID_CHARS];
    const role = roleOf(message[ID_CHARS + 1] as number);
    if (kind === 0x70 /* p */) return deliver(e, role, message.subarray(HEADER_BYTES));
    if (origin === id) return;
    if (kind === 0x66 /* f */) return deliver(e, role, message.subarray(HEADER_BYTES));
    if (kind === 0x63 /* c */) {
      const n = Number(message.toString('latin1', HEADER_BYTES));
      const counts = e.remote.get(origin) ?? { machine: 0, phone: 0 };
      counts[role] = n;
      if (counts.machine === 0 && counts.phone === 0) e.remote.delete(origin);
      else e.remote.set(origin, counts);
    }
  });

  const load = async (room: string, e: Entry) => {
    await sub.subscribe(CHANNEL + room);
    const flat = (await cmd.eval(LOAD_SCRIPT, 0, PREFIX, room)) as string[];
    for (let i = 0; i < flat.length; i += 2) {
      const [replica, role] = (flat[i] as string).split(':') as [string, Role];
      if (replica === id) continue;
      const counts = e.remote.get(replica) ?? { machine: 0, phone: 0 };
      counts[role] = Number(flat[i + 1]);
      e.remote.set(replica, counts);
    }
  };
  const publishCount = (room: string, role: Role, n: number) =>
    track('count', cmd.eval(COUNT_SCRIPT, 0, PREFIX, id, room, role, String(n)));

  const heartbeat = () =>
    track(
      'heartbeat',
      cmd
        .multi()
        .set(`${PREFIX}alive:${id}`, '1', 'PX', ttlMs)
        .sadd(`${PREFIX}replicas`, id)
        .exec(),
    ).then(() => track('reap', cmd.eval(REAP_SCRIPT, 0, PREFIX)));

  const r: Rooms = {
    ready(room, then) {
      let e = rooms.get(room);
      if (e?.loaded) return then();
      if (e !== undefined) return void e.waiters.push(then);
      const entry: Entry = {
        machine: new Set(),
        phone: new Set(),
        remote: new Map(),
        loaded: false,
        waiters: [then],
      };
      rooms.set(room, (e = entry));
      void track('subscribe', load(room, entry)).then(() => {
        entry.loaded = true;
        const w = entry.waiters;
        entry.waiters = [];
        for (const f of w) f();
        if (entry.machine.size === 0 && entry.phone.size === 0) drop(room, entry);
      });
    },
    join(room, role, peer) {
      const e = rooms.get(room);
      if (e === undefined || e[role].has(peer)) return false;
      e[role].add(peer);
      void publishCount(room, role, e[role].size);
      return true;
    },
    leave(room, role, peer) {
      const e = rooms.get(room);
      if (e === undefined || !e[role].delete(peer)) return e?.[role].size ?? 0;
      void publishCount(room, role, e[role].size);
      if (e.machine.size === 0 && e.phone.size === 0) drop(room, e);
      return e[role].size;
    },
    // Per replica: the per-room socket caps are enforced per replica (docs/scaling.md).
    count: (room, role) => rooms.get(room)?.[role].size ?? 0,
    peers(room) {
      const e = rooms.get(room);
      const out = { machine: e?.machine.size ?? 0, phone: e?.phone.size ?? 0 };
      for (const c of e?.remote.values() ?? []) {
        out.machine += c.machine;
        out.phone += c.phone;
      }
      return out;
    },
    members: (room, role) => rooms.get(room)?.[role] ?? [],
    broadcast(room, role, data) {
      const e = rooms.get(room);
      const body = typeof data === 'string' ? Buffer.from(data) : data;
      if (e !== undefined) deliver(e, role, body);
      void track('publish', cmd.publish(CHANNEL + room, Buffer.concat([header[role], body])));
    },
    roomCount: () => rooms.size,
    async close() {
      if (beat !== null) clearInterval(beat);
      while (pending.size > 0) await Promise.all([...pending]);
      pending = new Set();
      await cmd
        .multi()
        .del(`${PREFIX}alive:${id}`, `${PREFIX}rooms:${id}`)
        .srem(`${PREFIX}replicas`, id)
        .exec()
        .catch(() => undefined);
      cmd.disconnect();
      sub.disconnect();
    },
  };
  function drop(room: string, e: Entry) {
    if (!e.loaded || e.waiters.length > 0) return;
    rooms.delete(room);
    void track('unsubscribe', sub.unsubscribe(CHANNEL + room));
  }

  // online:true goes out with the join (a frame for the other role); online:false is decided
  // and published by COUNT_SCRIPT / REAP_SCRIPT, which see every replica's count at once.
  const presence: Presence = {
    joined: (room, role) =>
      r.broadcast(
        room,
        otherRole(role),
        encodeFrame({ kind: 'presence', room, role, online: true }),
      ),
    left: () => undefined,
  };

  return {
    rooms: r,
    presence,
    command: cmd,
    pushDecision(now, pingIntervalMs) {
      const local = makeLocalPushDecision(r, now, pingIntervalMs);
      return {
        phonesAbsent(room) {
          if (!local.phonesAbsent(room)) return false;
          for (const c of rooms.get(room)?.remote.values() ?? []) if (c.phone > 0) return false;
          return true;
        },
      };
    },
    replicaId: id,
    health: () => (cmdReady && subReady ? null : 'redis unreachable'),
    afterReconnect: (f) => void afterReconnect.push(f),
    async start() {
      await Promise.all([cmd.connect(), sub.connect()]);
      started = cmdReady = subReady = true;
      await heartbeat();
      // Wall-clock, not the injectable clock: the key's TTL runs in Redis, in real time.
      beat = setInterval(() => void heartbeat(), o.heartbeatMs);
    },
  };
}
