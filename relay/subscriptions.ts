// Push subscriptions keyed by (room, endpoint), in SQLite (better-sqlite3 12, WAL) inside the
// data dir so a restart loses none (D7). Behind an interface so replicas can share a store
// (issue 10). Only what sending needs is stored: endpoint and the two public keys.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

export type StoredSubscription = { endpoint: string; p256dh: string; auth: string };
export type AddOutcome = 'added' | 'refreshed' | 'limit';

type MaybePromise<T> = T | Promise<T>;

/** SQLite answers at once; a shared store (Redis) answers later: callers await either. */
export interface SubscriptionStore {
  /** Adds or refreshes; refuses a new endpoint when the room already holds `maxPerRoom`. */
  add(
    room: string,
    sub: StoredSubscription,
    nowMs: number,
    maxPerRoom: number,
  ): MaybePromise<AddOutcome>;
  remove(room: string, endpoint: string): MaybePromise<boolean>;
  /** Oldest first. */
  list(room: string): MaybePromise<StoredSubscription[]>;
  /** Deletes subscriptions not refreshed since `beforeMs`; returns how many. */
  expire(beforeMs: number): MaybePromise<number>;
  close(): MaybePromise<void>;
}

/** The SQLite store is synchronous. */
export type SyncSubscriptionStore = {
  [K in keyof SubscriptionStore]: (
    ...a: Parameters<SubscriptionStore[K]>
  ) => Awaited<ReturnType<SubscriptionStore[K]>>;
};

export function openSqliteSubscriptions(dataDir: string): SyncSubscriptionStore {
  const file = path.join(dataDir, 'subscriptions.db');
  // Create the file owner-only first: SQLite gives its -wal and -shm files the same mode.
  fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE IF NOT EXISTS subscriptions (
    room TEXT NOT NULL, endpoint TEXT NOT NULL, p256dh TEXT NOT NULL, auth TEXT NOT NULL,
    created_ms INTEGER NOT NULL, refreshed_ms INTEGER NOT NULL,
    PRIMARY KEY (room, endpoint)) WITHOUT ROWID`);
  const qCount = db.prepare<[string], { n: number }>(
    'SELECT count(*) AS n FROM subscriptions WHERE room = ?',
  );
  const qRefresh = db.prepare(
    'UPDATE subscriptions SET p256dh = ?, auth = ?, refreshed_ms = ? WHERE room = ? AND endpoint = ?',
  );
  const qInsert = db.prepare(
    'INSERT INTO subscriptions (room, endpoint, p256dh, auth, created_ms, refreshed_ms) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const qDelete = db.prepare('DELETE FROM subscriptions WHERE room = ? AND endpoint = ?');
  const qList = db.prepare<[string], StoredSubscription>(
    'SELECT endpoint, p256dh, auth FROM subscriptions WHERE room = ? ORDER BY created_ms',
  );
  const qExpire = db.prepare('DELETE FROM subscriptions WHERE refreshed_ms < ?');
  const add = db.transaction(
    (room: string, s: StoredSubscription, now: number, max: number): AddOutcome => {
      if (qRefresh.run(s.p256dh, s.auth, now, room, s.endpoint).changes > 0) return 'refreshed';
      if ((qCount.get(room)?.n ?? 0) >= max) return 'limit';
      qInsert.run(room, s.endpoint, s.p256dh, s.auth, now, now);
      return 'added';
    },
  );
  return {
    add: (room, sub, now, max) => add(room, sub, now, max),
    remove: (room, endpoint) => qDelete.run(room, endpoint).changes > 0,
    list: (room) => qList.all(room),
    expire: (before) => qExpire.run(before).changes,
    close: () => db.close(),
  };
}
