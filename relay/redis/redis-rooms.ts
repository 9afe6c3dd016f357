// Rooms and presence shared by many relay replicas through one Redis (RS1–RS3). Each replica
// keeps its own sockets in memory exactly like the in-process Rooms, and adds: one pub/sub
// channel per room for counts and `online:false`, subscribed only while it holds a socket of that
// room (or one is joining); its per-room socket counts in Redis under a heartbeat key that
// expires when it dies; a cache of the other replicas' counts (loaded on subscribe, then kept by
// their `c` messages) so hello-ok's peers are global without a round trip per hello; and an inbox
// channel of its own. Frames go out verbatim to the inbox of each replica that holds a socket of
// the target role, batched per event-loop turn (batch.ts).
import { randomBytes } from 'node:crypto';
import { Command, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { encodeFrame } from '../../protocol/index.ts';
import type { Presence } from '../presence.ts';
import { makeLocalPushDecision, type PushDecision } from '../push-decision.ts';
import { otherRole, type Peer, type Peers, type Role, type Rooms } from '../rooms.ts';
import type { Timers } from '../timers.ts';
import { makeBatchReader, makeBatcher, publishPieces } from './batch.ts';
import { COUNT_SCRIPT, LIVE_SCRIPT, LOAD_SCRIPT, REAP_SCRIPT } from './scripts.ts';
import { makeSubscriber, type MessageSink } from './subscriber.ts';

const PREFIX = 'relay:';
const CHANNEL = `${PREFIX}ch:`;
const INBOX = `${PREFIX}in:`;
const ID_CHARS = 16;
const HEADER_BYTES = ID_CHARS + 2;
/** A heartbeat key lives this many intervals: one missed beat is not death. */
export const HEARTBEAT_TTL_INTERVALS = 3;
const RETRY_MAX_MS = 500;
/** How often a replica re-counts its live phones (D5), at most; see pushDecision. */
const LIVE_SWEEP_MAX_MS = 1_000;

/** Another replica's sockets in a room; `live`: its phones that are live by D5. */
type Counts = Peers & { live: number };
type CountKey = keyof Counts;
type Entry = {
  machine: Set<Peer>;
  phone: Set<Peer>;
  /** Other replicas' counts, by replica id. */
  remote: Map<string, Counts>;
  loaded: boolean;
  waiters: (() => void)[];
  /** Loads of `remote` in flight, and the `c` messages that arrived meanwhile (replayed after). */
  loading: number;
  early: [string, CountKey, number][];
  /** The live-phone count this replica last published for the room (-1: none yet). */
  livePublished: number;
};

export type RedisRoomsOptions = { url: string; heartbeatMs: number; timers: Timers; log: Logger };
export type RedisRooms = {
  rooms: Rooms;
  presence: Presence;
  /** The command connection, for the subscription store and the VAPID key. */
  command: Redis;
  /**
   * "No phone socket in the room", globally: D5's silence rule on this replica's own phones, and
   * the other replicas' counts of their live phones (each re-counts its own by D5 every sweep).
   */
  pushDecision(now: () => number, pingIntervalMs: number): PushDecision;
  replicaId: string;
  /** null when healthy, else why not (for /healthz). */
  health(): string | null;
  /** Runs after every reconnect, before the replica reports healthy again. */
  afterReconnect(f: () => Promise<unknown>): void;
  start(): Promise<void>;
};

const countKeyOf = (byte: number): CountKey =>
  byte === 0x6d ? 'machine' : byte === 0x6c ? 'live' : 'phone';
/**
 * Sends a command already encoded in RESP, as pieces written in order into the (corked) socket;
 * its reply is handled as the named command's.
 */
function rawCommand(conn: Redis, name: string, pieces: Buffer[]): Promise<unknown> {
  const c = new Command(name, []);
  const last = pieces.length - 1;
  c.toWritable = (socket) => {
    const stream = socket as NodeJS.WritableStream;
    for (let i = 0; i < last; i++) stream.write(pieces[i] as Buffer);
    return pieces[last] as Buffer;
  };
  void conn.sendCommand(c);
  return c.promise;
}
const roleOf = (byte: number): Role => (byte === 0x6d ? 'machine' : 'phone');
const noCounts = (): Counts => ({ machine: 0, phone: 0, live: 0 });

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
  let started = false;
  let cmdReady = false;
  let subReady = false;
  const afterReconnect: (() => Promise<unknown>)[] = [];
  const rooms = new Map<string, Entry>();
  const inbox = INBOX + id;
  // The batches of many rooms flushed in one turn leave in one socket write (cork). Not
  // ioredis's auto-pipelining: it holds commands while a previous pipeline awaits its replies.
  const batchHeader = Buffer.from(`${id}b-`);
  const batch = makeBatcher(
    (replica, entries) =>
      void track(
        'publish',
        rawCommand(cmd, 'publish', publishPieces(INBOX + replica, batchHeader, entries)),
      ),
    (publishAll) => {
      const stream = cmd.stream as typeof cmd.stream | undefined;
      stream?.cork();
      publishAll();
      stream?.uncork();
    },
  );
  /** Set by pushDecision: D5's silence threshold and clock, for the live-phone counts. */
  let live: {
    now: () => number;
    silenceMs: number;
    sweep: ReturnType<Timers['setInterval']>;
  } | null = null;
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
  // After a reconnect (Redis restarted, maybe empty): put back this replica's heartbeat and
  // counts, the shared VAPID key, and every channel it listens to; only then report healthy.
  cmd.on('ready', () => {
    if (!started) return;
    const counts = [...rooms].flatMap(([room, e]) => {
      e.livePublished = -1;
      return [
        ...(['machine', 'phone'] as const)
          .filter((role) => e[role].size > 0)
          .map((role) => publishCount(room, role, e[role].size)),
        publishLive(room, e),
      ];
    });
    void Promise.all([
      heartbeat(),
      ...counts,
      ...afterReconnect.map((f) => track('restore', f())),
    ]).then(() => (cmdReady = cmd.status === 'ready'));
  });
  let lastError: string | null = null;
  cmd.on('error', (e: Error) => {
    lastError = e.message;
    o.log.warn({ error: e.message, connection: 'commands' }, 'redis connection error');
  });

  const deliver = (e: Entry, role: Role, data: Buffer) => {
    for (const p of e[role]) p.send(data);
  };
  const inboxBytes = Buffer.from(inbox, 'latin1');
  // Inbox batches are streamed: each frame a view of the subscriber socket's read when it lies
  // inside one (batch.ts makeBatchReader). Room-channel messages are small: assembled whole.
  const inboxReader = makeBatchReader(HEADER_BYTES, (room, role, frame) => {
    const e = rooms.get(room);
    if (e !== undefined) deliver(e, role, frame);
  });
  let toInbox = false;
  let whole: { channel: Buffer; message: Buffer; at: number } | null = null;
  const messages: MessageSink = {
    messageStart(channel, bytes) {
      toInbox = channel.equals(inboxBytes);
      if (toInbox) return inboxReader.start(bytes);
      whole = { channel, message: Buffer.allocUnsafe(bytes), at: 0 };
    },
    messageData(piece) {
      if (toInbox) return inboxReader.push(piece);
      if (whole !== null) whole.at += piece.copy(whole.message, whole.at);
    },
    messageEnd() {
      if (toInbox) return inboxReader.end();
      const w = whole;
      whole = null;
      if (w !== null) onRoomMessage(w.channel, w.message);
    },
    messageAbort() {
      inboxReader.end();
      whole = null;
    },
  };
  const onRoomMessage = (channel: Buffer, message: Buffer) => {
    if (message.length < HEADER_BYTES) return;
    const kind = message[ID_CHARS];
    const e = rooms.get(channel.toString('latin1', CHANNEL.length));
    if (e === undefined) return;
    if (kind === 0x70 /* p */)
      return deliver(e, roleOf(message[ID_CHARS + 1] as number), message.subarray(HEADER_BYTES));
    const origin = message.toString('latin1', 0, ID_CHARS);
    if (origin === id) return;
    if (kind === 0x63 /* c */) {
      const key = countKeyOf(message[ID_CHARS + 1] as number);
      const n = Number(message.toString('latin1', HEADER_BYTES));
      setCount(e.remote, origin, key, n);
      if (e.loading > 0) e.early.push([origin, key, n]);
    }
  };
  // After a reconnect: every channel it listens to again, and the counts announced while it was
  // down (missed) loaded again; only then healthy.
  const sub = makeSubscriber({
    url: o.url,
    retryMs: connOptions.retryStrategy,
    messages,
    onReady() {
      if (!started) return;
      const done = sub.subscribe(inbox, ...[...rooms.keys()].map((r) => CHANNEL + r));
      const reloaded = done.then(() => Promise.all([...rooms].map(([room, e]) => load(room, e))));
      void track('resubscribe', reloaded).then(() => (subReady = sub.ready));
    },
    onClose: () => (subReady = false),
    onError: (e) => {
      lastError = e.message;
      o.log.warn({ error: e.message, connection: 'subscriber' }, 'redis connection error');
    },
  });

  // Subscribed first, then the snapshot: a count changed after the snapshot arrives as a `c`
  // message; one that arrived before the snapshot's reply is replayed over it, so the newest wins.
  const load = async (room: string, e: Entry) => {
    e.loading++;
    try {
      if (!e.loaded) await sub.subscribe(CHANNEL + room);
      const flat = (await cmd.eval(LOAD_SCRIPT, 0, PREFIX, room)) as string[];
      const remote = new Map<string, Counts>();
      for (let i = 0; i < flat.length; i += 2) {
        const [replica, key] = (flat[i] as string).split(':') as [string, CountKey];
        if (replica !== id) setCount(remote, replica, key, Number(flat[i + 1]));
      }
      for (const [replica, key, n] of e.early) setCount(remote, replica, key, n);
      e.remote = remote;
    } finally {
      if (--e.loading === 0) e.early = [];
    }
  };
  const publishCount = (room: string, role: Role, n: number) => {
    batch.flush(); // frames queued before this count go first
    return track('count', cmd.eval(COUNT_SCRIPT, 0, PREFIX, id, room, role, String(n)));
  };
  /** Publishes this replica's count of live phones in the room when it changed. */
  const publishLive = (room: string, e: Entry) => {
    if (live === null) return Promise.resolve();
    const t = live.now();
    let n = 0;
    for (const p of e.phone) if (t - p.lastSeenMs <= live.silenceMs) n++;
    if (n === e.livePublished) return Promise.resolve();
    e.livePublished = n;
    batch.flush();
    return track('live', cmd.eval(LIVE_SCRIPT, 0, PREFIX, id, room, String(n)));
  };

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
        loading: 0,
        early: [],
        livePublished: -1,
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
      if (role === 'phone') void publishLive(room, e);
      return true;
    },
    leave(room, role, peer) {
      const e = rooms.get(room);
      if (e === undefined || !e[role].delete(peer)) return e?.[role].size ?? 0;
      if (role === 'phone') void publishLive(room, e);
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
      if (e === undefined) return;
      const body = typeof data === 'string' ? Buffer.from(data) : data;
      deliver(e, role, body);
      // To the replicas that hold a socket of that role now. One that joins later is subscribed
      // to the room and has sent its count before its hello-ok (load(), join()); that count
      // reaches here before anything that could have caused a frame for it (one subscriber
      // connection per replica, one command connection per replica: Redis keeps their order).
      for (const [replica, c] of e.remote) if (c[role] > 0) batch.add(replica, room, role, body);
    },
    roomCount: () => rooms.size,
    async close() {
      if (beat !== null) clearInterval(beat);
      if (live !== null) o.timers.clearInterval(live.sweep);
      batch.flush();
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
  function setCount(m: Map<string, Counts>, replica: string, key: CountKey, n: number) {
    const c = m.get(replica) ?? noCounts();
    c[key] = n;
    if (c.machine === 0 && c.phone === 0 && c.live === 0) m.delete(replica);
    else m.set(replica, c);
  }
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
      // D5 globally: each replica publishes how many of its phones are live, re-counted on every
      // join and leave and every sweep (so a phone that went silent, or came back, is announced
      // within one sweep after the 1.5 × ping threshold). Only changes are published.
      const sweepMs = Math.min(LIVE_SWEEP_MAX_MS, pingIntervalMs / 4);
      if (live !== null) o.timers.clearInterval(live.sweep);
      live = {
        now,
        silenceMs: 1.5 * pingIntervalMs,
        sweep: o.timers.setInterval(() => {
          for (const [room, e] of rooms)
            if (e.phone.size > 0 || e.livePublished > 0) void publishLive(room, e);
        }, sweepMs),
      };
      return {
        phonesAbsent(room) {
          if (!local.phonesAbsent(room)) return false;
          for (const c of rooms.get(room)?.remote.values() ?? []) if (c.live > 0) return false;
          return true;
        },
      };
    },
    replicaId: id,
    health: () => (cmdReady && subReady ? null : 'redis unreachable'),
    afterReconnect: (f) => void afterReconnect.push(f),
    async start() {
      try {
        await Promise.all([cmd.connect(), sub.connect()]);
      } catch (e) {
        // ioredis rejects with "Connection is closed."; the cause (refused, a certificate) came
        // as an error event. The URL is never repeated: it may carry a password.
        const { hostname, port } = new URL(o.url);
        throw new Error(
          `cannot reach Redis at ${hostname}:${port || 6379}: ${lastError ?? (e as Error).message}`,
        );
      }
      await sub.subscribe(inbox);
      started = cmdReady = subReady = true;
      await heartbeat();
      // Wall-clock, not the injectable clock: the key's TTL runs in Redis, in real time.
      beat = setInterval(() => void heartbeat(), o.heartbeatMs);
    },
  };
}
