import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { openSqlite, sqliteCodeName, type Sqlite } from '../../device/lane/sqlite.ts';
import type { Log } from '../log.ts';
import { ensurePrivateDir, StateError } from '../links/state-dir.ts';

// The machine's one embedded store (U5, H3): SQLite (device/lane/sqlite.ts) in the state dir,
// owner-only. SQLite's journal makes every write all-or-nothing, so a crash or a full disk never
// leaves a half-written record. In WAL mode with synchronous=NORMAL a commit survives the
// process dying; a `durable` write is also synced to disk before it returns, so it survives a
// power cut (a remembered requestId must, or a replay could slip through after one). The schema is
// versioned with `PRAGMA user_version`: later rules add their tables as new migrations (docs/
// machine.md, "What the state dir holds").

export const STORE_FILE = 'machine.db';

/** Each entry upgrades the schema by one version; never edit one that has shipped. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     session_id TEXT PRIMARY KEY, title TEXT NOT NULL, cwd TEXT NOT NULL, root TEXT,
     state TEXT NOT NULL, last_activity INTEGER NOT NULL, created_at INTEGER NOT NULL,
     dispatched INTEGER NOT NULL, access TEXT NOT NULL, steps TEXT NOT NULL,
     worktree_path TEXT, worktree_branch TEXT) WITHOUT ROWID;
   CREATE TABLE transcript (
     session_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL,
     ts INTEGER NOT NULL, truncated INTEGER NOT NULL, bytes INTEGER NOT NULL,
     PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
   CREATE TABLE seen_requests (
     request_id TEXT PRIMARY KEY, type TEXT NOT NULL, seen_at INTEGER NOT NULL) WITHOUT ROWID;
   CREATE INDEX seen_requests_by_time ON seen_requests (seen_at);`,
  // E2: `always` rules, one per (tool, key, allowed root). `session` rules live in memory only:
  // they end with the session, and no session outlives the process (sessions after a restart are
  // not live).
  `CREATE TABLE rules (
     rule_id TEXT PRIMARY KEY, tool TEXT NOT NULL, key TEXT NOT NULL, root TEXT NOT NULL,
     created_at INTEGER NOT NULL, uses INTEGER NOT NULL, UNIQUE (tool, key, root)) WITHOUT ROWID;`,
  // E6: the phones that registered (a box key fixed at first registration, a revocation time) and
  // the rooms retired by a revoke (with the secret that replaced each), kept so late phones can be
  // handed the new secret and a revoke cut short between store and secret file can finish. E7: a phone's
  // WebAuthn credential (JSON) and the highest signature counter seen. Every action records the
  // phone that claims it.
  `CREATE TABLE phones (
     phone_id TEXT PRIMARY KEY, name TEXT NOT NULL, box_key TEXT NOT NULL,
     first_seen INTEGER NOT NULL, last_seen INTEGER NOT NULL, revoked_at INTEGER,
     credential_id TEXT UNIQUE, credential TEXT, sign_count INTEGER NOT NULL DEFAULT 0)
     WITHOUT ROWID;
   CREATE TABLE retired_rooms (
     secret TEXT PRIMARY KEY, next_secret TEXT NOT NULL, retired_at INTEGER NOT NULL)
     WITHOUT ROWID;
   ALTER TABLE seen_requests ADD COLUMN phone_id TEXT;`,
  // E9: a phone is approved or pending (waits for the owner). Phones kept from before E9 were let
  // in under E6 and stay approved.
  `ALTER TABLE phones ADD COLUMN state TEXT NOT NULL DEFAULT 'approved';`,
  // E10: which agent runs a session, the model and usage it reported, and the agent's own session
  // id (Claude's session_id, Codex's thread id) a reply after a restart resumes.
  `ALTER TABLE sessions ADD COLUMN agent TEXT;
   ALTER TABLE sessions ADD COLUMN model TEXT;
   ALTER TABLE sessions ADD COLUMN usage TEXT;
   ALTER TABLE sessions ADD COLUMN native_id TEXT;`,
  // E11: why a session can take no more messages (`stopped`, `failed`), kept so a restart never
  // brings it back. `machine-restarted` is not stored: it is decided at each start, from whether
  // the session's agent can resume it then.
  `ALTER TABLE sessions ADD COLUMN ended TEXT;`,
  // E10: where the machine stopped reading a desk session's own transcript file (JSON: the file,
  // the byte offset, the tool calls whose results are to come), written in the same transaction
  // as the lines read up to there, so a restart resumes at it.
  `ALTER TABLE sessions ADD COLUMN desk_read TEXT;`,
];
export const STORE_SCHEMA_VERSION = MIGRATIONS.length;

export type Store = {
  readonly db: Sqlite;
  /**
   * Runs a write. A failure (disk full, I/O error) is logged once per episode and reported as
   * `false`; SQLite has rolled it back, so nothing half-written stays behind. `durable`: synced
   * to disk before it returns (and with it every earlier write).
   */
  write(what: string, fn: () => void, options?: { durable?: boolean }): boolean;
  close(): void;
};

const SQLITE_DAMAGE = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB']);

export function openStore(
  stateDir: string,
  options: {
    log: Log;
    /** Tests: a tiny database, so a write fails as on a full disk. */ maxPages?: number;
  },
): Store {
  ensurePrivateDir(stateDir);
  const file = path.join(stateDir, STORE_FILE);
  let db: Sqlite;
  try {
    // Created owner-only before SQLite opens it: its -wal and -shm files take the same mode.
    closeSync(openSync(file, 'a', 0o600));
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    db = openSqlite(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, file);
    if (options.maxPages !== undefined) db.pragma(`max_page_count = ${options.maxPages}`);
  } catch (e) {
    if (e instanceof StateError) throw e;
    const code = sqliteCodeName(e);
    throw SQLITE_DAMAGE.has(code)
      ? new StateError(
          'store-corrupt',
          `${file} is damaged (${code}); move it aside to start without the session history`,
        )
      : new StateError('state-dir-unusable', `cannot open ${file}: ${(e as Error).message}`);
  }

  let failing = false;
  return {
    db,
    write(what, fn, o) {
      const durable = o?.durable === true;
      try {
        if (durable) db.pragma('synchronous = FULL');
        db.transaction(fn)();
      } catch (e) {
        if (!failing) {
          failing = true;
          options.log('error', 'store-write-failed', `${what}: ${(e as Error).message}`);
        }
        return false;
      } finally {
        if (durable && db.isOpen) db.pragma('synchronous = NORMAL');
      }
      if (failing) {
        failing = false;
        options.log('info', 'store-write-recovered', `${what}: writes succeed again`);
      }
      return true;
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}

function migrate(db: Sqlite, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new StateError(
      'store-too-new',
      `${file} was written by a newer machine (schema ${version}, this one knows ${MIGRATIONS.length})`,
    );
  }
  db.transaction(() => {
    for (let v = version; v < MIGRATIONS.length; v++) db.exec(MIGRATIONS[v]!);
    db.pragma(`user_version = ${MIGRATIONS.length}`);
  })();
}
