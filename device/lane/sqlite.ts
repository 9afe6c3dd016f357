import {
  DatabaseSync,
  enhance,
  type DatabaseSyncInstance,
  type EnhancedDatabaseSync,
} from '@photostructure/sqlite';

// SQLite for the Node parts that keep state across restarts: the device lane's registry and the
// machine's store (the machine hosts the lane, so it shares this opener; the relay has its own).
// @photostructure/sqlite ships its prebuilt binaries inside the npm package, so `npm ci` installs
// it without compiling anything; better-sqlite3 downloads its binaries from GitHub at install time,
// which a registry-only network refuses, and then compiles SQLite from source (about 75 CPU-s on
// every clean install). `enhance` adds better-sqlite3's `transaction()` (a savepoint when nested,
// rolled back on a throw) and `pragma()`.
export type Sqlite = EnhancedDatabaseSync<DatabaseSyncInstance>;

export function openSqlite(file: string, options: { readOnly?: boolean } = {}): Sqlite {
  return enhance(new DatabaseSync(file, { readOnly: options.readOnly === true }));
}

/** A prepared statement with its parameter and row types (the driver types rows as `any`). */
export type Statement<P extends unknown[], R> = {
  get(...params: P): R | undefined;
  all(...params: P): R[];
  run(...params: P): { changes: number; lastInsertRowid: number };
};

export function statement<P extends unknown[], R>(db: Sqlite, sql: string): Statement<P, R> {
  return db.prepare(sql) as unknown as Statement<P, R>;
}

/** `SQLITE_CORRUPT`, `SQLITE_FULL`, …: the driver's error code name, or '' for another error. */
export function sqliteCodeName(e: unknown): string {
  return (e as { sqliteCodeName?: string } | null)?.sqliteCodeName ?? '';
}
