// Push subscriptions keyed by (room, endpoint), in SQLite (@photostructure/sqlite, WAL) inside the
// data dir so a restart loses none (D7). Behind an interface so replicas can share a store
// (docs/scaling.md). Only what sending needs is stored — endpoint and the two public keys — plus what
// bounds the store (H2): a tag of the IP key that created the entry (not the address), and when
// a machine was last seen in the room.
import {
  DatabaseSync,
  enhance,
  type DatabaseSyncInstance,
  type EnhancedDatabaseSync,
} from '@photostructure/sqlite';
import fs from 'node:fs';
import path from 'node:path';

export type StoredSubscription = { endpoint: string; p256dh: string; auth: string };
export type AddOutcome = 'added' | 'refreshed' | 'limit-room' | 'limit-ip' | 'limit-total';
export type SubscriptionCaps = { perRoom: number; perIp: number; total: number };
export type NewSubscription = {
  room: string;
  sub: StoredSubscription;
  /** The subscribing socket's IP key (ip.ts) as an opaque tag (subscribe.ts makeIpTag); the
   * entry counts against it for as long as it is stored, whoever refreshes it later. */
  ip: string;
  nowMs: number;
  /** A machine socket is in the room now: the room counts as seen by a machine (H2). */
  machinePresent: boolean;
};
export type ExpireCutoffs = {
  /** D7: not refreshed by a push-subscribe since. */
  refreshedBeforeMs: number;
  /** H2: no machine joined the room since. */
  machineBeforeMs: number;
  /** H2: created before this in a room no machine has joined since. */
  unseenBeforeMs: number;
};
export type Expired = { stale: number; machineAbsent: number; neverMachine: number };

type MaybePromise<T> = T | Promise<T>;

/** SQLite answers at once; a shared store (Redis) answers later: callers await either. */
export interface SubscriptionStore {
  /** Adds or refreshes; refreshing a stored endpoint always works, a new one must fit every cap. */
  add(n: NewSubscription, caps: SubscriptionCaps): MaybePromise<AddOutcome>;
  remove(room: string, endpoint: string): MaybePromise<boolean>;
  /** Oldest first. */
  list(room: string): MaybePromise<StoredSubscription[]>;
  /** A machine is in these rooms now: their subscriptions count as seen by a machine (H2). */
  machineSeen(rooms: readonly string[], nowMs: number): MaybePromise<void>;
  /** Deletes what the cutoffs say, returns how many for each reason. */
  expire(c: ExpireCutoffs): MaybePromise<Expired>;
  close(): MaybePromise<void>;
}

/** The SQLite store is synchronous. */
export type SyncSubscriptionStore = {
  [K in keyof SubscriptionStore]: (
    ...a: Parameters<SubscriptionStore[K]>
  ) => Awaited<ReturnType<SubscriptionStore[K]>>;
};

/** Databases written before H2 lack the two columns: their entries count as seen by a machine
 * at their last refresh, so an upgrade does not drop them within the grace. */
type Sqlite = EnhancedDatabaseSync<DatabaseSyncInstance>;

function migrate(db: Sqlite): void {
  const cols = db.prepare('PRAGMA table_info(subscriptions)').all() as { name: string }[];
  if (cols.some((c) => c.name === 'ip')) return;
  db.exec(`ALTER TABLE subscriptions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
    ALTER TABLE subscriptions ADD COLUMN machine_seen_ms INTEGER;
    UPDATE subscriptions SET machine_seen_ms = refreshed_ms;`);
}

export function openSqliteSubscriptions(dataDir: string): SyncSubscriptionStore {
  const file = path.join(dataDir, 'subscriptions.db');
  // Create the file owner-only first: SQLite gives its -wal and -shm files the same mode.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  // Prebuilt binaries inside the npm package: nothing compiles at install (docs/relay.md).
  const db = enhance(new DatabaseSync(file));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS subscriptions (
    room TEXT NOT NULL, endpoint TEXT NOT NULL, p256dh TEXT NOT NULL, auth TEXT NOT NULL,
    created_ms INTEGER NOT NULL, refreshed_ms INTEGER NOT NULL,
    PRIMARY KEY (room, endpoint)) WITHOUT ROWID`);
  migrate(db);
  db.exec('CREATE INDEX IF NOT EXISTS subscriptions_ip ON subscriptions (ip)');
  const count = (sql: string) => {
    const q = db.prepare(sql);
    return { get: (...p: unknown[]) => q.get(...p) as { n: number } | undefined };
  };
  const qRoomCount = count('SELECT count(*) AS n FROM subscriptions WHERE room = ?');
  const qIpCount = count('SELECT count(*) AS n FROM subscriptions WHERE ip = ?');
  const qRefresh = db.prepare(
    'UPDATE subscriptions SET p256dh = ?, auth = ?, refreshed_ms = ? WHERE room = ? AND endpoint = ?',
  );
  // A new entry inherits when a machine was last seen in its room from the room's other entries.
  const qInsert = db.prepare(`INSERT INTO subscriptions
    (room, endpoint, p256dh, auth, created_ms, refreshed_ms, ip, machine_seen_ms)
    VALUES (@room, @endpoint, @p256dh, @auth, @now, @now, @ip,
      (SELECT max(machine_seen_ms) FROM subscriptions WHERE room = @room))`);
  const qSeen = db.prepare('UPDATE subscriptions SET machine_seen_ms = ? WHERE room = ?');
  const qDelete = db.prepare('DELETE FROM subscriptions WHERE room = ? AND endpoint = ?');
  const qList = db.prepare(
    'SELECT endpoint, p256dh, auth FROM subscriptions WHERE room = ? ORDER BY created_ms',
  );
  const qStale = db.prepare('DELETE FROM subscriptions WHERE refreshed_ms < ?');
  const qAbsent = db.prepare('DELETE FROM subscriptions WHERE machine_seen_ms < ?');
  const qNever = db.prepare(
    'DELETE FROM subscriptions WHERE machine_seen_ms IS NULL AND created_ms < ?',
  );
  // One process owns the file, so the total is counted once and then kept (count(*) would scan
  // the whole table on every subscribe).
  let total = count('SELECT count(*) AS n FROM subscriptions').get()?.n ?? 0;

  const seen = db.transaction((rooms: readonly string[], now: number) => {
    for (const room of rooms) qSeen.run(now, room);
  });
  const add = db.transaction((n: NewSubscription, caps: SubscriptionCaps): AddOutcome => {
    const { room, sub: s, nowMs } = n;
    let outcome: AddOutcome = 'refreshed';
    if (qRefresh.run(s.p256dh, s.auth, nowMs, room, s.endpoint).changes === 0) {
      if ((qRoomCount.get(room)?.n ?? 0) >= caps.perRoom) return 'limit-room';
      if ((qIpCount.get(n.ip)?.n ?? 0) >= caps.perIp) return 'limit-ip';
      if (total >= caps.total) return 'limit-total';
      qInsert.run({
        room,
        endpoint: s.endpoint,
        p256dh: s.p256dh,
        auth: s.auth,
        now: nowMs,
        ip: n.ip,
      });
      total++;
      outcome = 'added';
    }
    if (n.machinePresent) qSeen.run(nowMs, room);
    return outcome;
  });
  const expire = db.transaction((c: ExpireCutoffs): Expired => {
    const out = {
      stale: qStale.run(c.refreshedBeforeMs).changes,
      machineAbsent: qAbsent.run(c.machineBeforeMs).changes,
      neverMachine: qNever.run(c.unseenBeforeMs).changes,
    };
    total -= out.stale + out.machineAbsent + out.neverMachine;
    return out;
  });
  return {
    add: (n, caps) => add(n, caps),
    remove(room, endpoint) {
      const gone = qDelete.run(room, endpoint).changes;
      total -= gone;
      return gone > 0;
    },
    // Plain objects: the driver's rows have a null prototype.
    list: (room) => (qList.all(room) as StoredSubscription[]).map((r) => ({ ...r })),
    machineSeen: (rooms, now) => seen(rooms, now),
    expire: (c) => expire(c),
    close: () => db.close(),
  };
}
