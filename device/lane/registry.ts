import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { mintDeviceId, type DevicePlatformOs } from '../wire/index.ts';
import { openSqlite } from './sqlite.ts';

// The device registry lives in SQLite (./sqlite.ts) in the lane's data dir: enrolled devices,
// enrollment-token digests, the per-device connection generation and the audit trail must survive
// a restart of the hosting process, and SQLite gives atomic multi-row updates (token consumed and
// device created in one transaction) without us writing a journal. Tokens are stored only as
// SHA-256 digests.

export type DeviceRecord = {
  deviceId: string;
  owner: string;
  pubkey: string;
  platformOs: DevicePlatformOs;
  platformArch: string | null;
  displayName: string | null;
  workspaceRoot: string;
  createdAt: number;
  revokedAt: number | null;
  gen: string;
};

export type EnrollInput = {
  owner: string;
  token: string;
  pubkey: string;
  platformOs: DevicePlatformOs;
  platformArch?: string | undefined;
  displayName?: string | undefined;
  workspaceRoot: string;
};
/** The finer reasons behind the single wire answer `device.enrollment_invalid` (audit only). */
export type EnrollRefusal = 'token_unknown' | 'token_expired' | 'token_wrong_owner' | 'token_reuse';
export type EnrollResult =
  { ok: true; deviceId: string; replay: boolean } | { ok: false; reason: EnrollRefusal };

export const tokenDigest = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');

const SCHEMA = `
CREATE TABLE IF NOT EXISTS enroll_tokens (
  digest TEXT PRIMARY KEY, owner TEXT NOT NULL, expires_at INTEGER NOT NULL,
  device_id TEXT, pubkey TEXT);
CREATE TABLE IF NOT EXISTS devices (
  device_id TEXT PRIMARY KEY, owner TEXT NOT NULL, pubkey TEXT NOT NULL,
  platform_os TEXT NOT NULL, platform_arch TEXT, display_name TEXT,
  workspace_root TEXT NOT NULL, created_at INTEGER NOT NULL, revoked_at INTEGER,
  gen INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, event TEXT NOT NULL,
  device_id TEXT, detail TEXT NOT NULL);
`;

type DeviceRow = {
  device_id: string;
  owner: string;
  pubkey: string;
  platform_os: DevicePlatformOs;
  platform_arch: string | null;
  display_name: string | null;
  workspace_root: string;
  created_at: number;
  revoked_at: number | null;
  gen: bigint | number;
};
const toRecord = (r: DeviceRow): DeviceRecord => ({
  deviceId: r.device_id,
  owner: r.owner,
  pubkey: r.pubkey,
  platformOs: r.platform_os,
  platformArch: r.platform_arch,
  displayName: r.display_name,
  workspaceRoot: r.workspace_root,
  createdAt: Number(r.created_at),
  revokedAt: r.revoked_at === null ? null : Number(r.revoked_at),
  gen: String(r.gen),
});

// The connection generation counts without bound: read it as a bigint, never a rounded number.
const bigInts = <S extends { setReadBigInts(on: boolean): void }>(s: S): S => {
  s.setReadBigInts(true);
  return s;
};

export const makeRegistry = (dataDir: string) => {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = openSqlite(join(dataDir, 'device-lane.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(SCHEMA);

  const q = {
    insertToken: db.prepare(
      'INSERT INTO enroll_tokens (digest, owner, expires_at) VALUES (?, ?, ?)',
    ),
    getToken: db.prepare('SELECT * FROM enroll_tokens WHERE digest = ?'),
    useToken: db.prepare('UPDATE enroll_tokens SET device_id = ?, pubkey = ? WHERE digest = ?'),
    insertDevice: db.prepare(
      `INSERT INTO devices (device_id, owner, pubkey, platform_os, platform_arch, display_name,
       workspace_root, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    getDevice: bigInts(db.prepare('SELECT * FROM devices WHERE device_id = ?')),
    listDevices: bigInts(db.prepare('SELECT * FROM devices ORDER BY created_at, device_id')),
    revoke: db.prepare(
      'UPDATE devices SET revoked_at = ? WHERE device_id = ? AND revoked_at IS NULL',
    ),
    nextGen: bigInts(
      db.prepare('UPDATE devices SET gen = gen + 1 WHERE device_id = ? RETURNING gen'),
    ),
    insertAudit: db.prepare('INSERT INTO audit (at, event, device_id, detail) VALUES (?, ?, ?, ?)'),
    pruneAudit: db.prepare('DELETE FROM audit WHERE id <= (SELECT MAX(id) FROM audit) - ?'),
    listAudit: db.prepare('SELECT at, event, device_id, detail FROM audit ORDER BY id'),
  };

  type TokenRow = {
    digest: string;
    owner: string;
    expires_at: number;
    device_id: string | null;
    pubkey: string | null;
  };

  const enrollTx = db.transaction((input: EnrollInput, nowMs: number): EnrollResult => {
    const digest = tokenDigest(input.token);
    const row = q.getToken.get(digest) as TokenRow | undefined;
    if (row === undefined) return { ok: false, reason: 'token_unknown' };
    if (row.owner !== input.owner) return { ok: false, reason: 'token_wrong_owner' };
    if (row.device_id !== null) {
      // Same token, same key: the lost-response retry, answered exactly like the first time.
      return row.pubkey === input.pubkey
        ? { ok: true, deviceId: row.device_id, replay: true }
        : { ok: false, reason: 'token_reuse' };
    }
    if (row.expires_at <= nowMs) return { ok: false, reason: 'token_expired' };
    const deviceId = mintDeviceId(nowMs);
    q.insertDevice.run(
      deviceId,
      input.owner,
      input.pubkey,
      input.platformOs,
      input.platformArch ?? null,
      input.displayName ?? null,
      input.workspaceRoot,
      nowMs,
    );
    q.useToken.run(deviceId, input.pubkey, digest);
    return { ok: true, deviceId, replay: false };
  });

  let auditInserts = 0;
  return {
    issueToken(owner: string, nowMs: number, ttlSec: number) {
      const token = randomBytes(32).toString('base64url');
      const expiresAtMs = nowMs + ttlSec * 1000;
      q.insertToken.run(tokenDigest(token), owner, expiresAtMs);
      return { token, expiresAt: new Date(expiresAtMs).toISOString(), ttlSec };
    },
    enroll: (input: EnrollInput, nowMs: number): EnrollResult => enrollTx(input, nowMs),
    getDevice(deviceId: string): DeviceRecord | undefined {
      const r = q.getDevice.get(deviceId) as DeviceRow | undefined;
      return r === undefined ? undefined : toRecord(r);
    },
    listDevices: (): DeviceRecord[] => (q.listDevices.all() as DeviceRow[]).map(toRecord),
    revoke: (deviceId: string, nowMs: number): boolean => q.revoke.run(nowMs, deviceId).changes > 0,
    /** Bumps and returns the device's connection generation as a canonical decimal string. */
    nextGen(deviceId: string): string {
      const r = q.nextGen.get(deviceId) as { gen: bigint } | undefined;
      if (r === undefined) throw new Error(`device-lane: no device ${deviceId}`);
      return r.gen.toString();
    },
    audit(at: number, event: string, deviceId: string | null, detail: object, keepRows: number) {
      q.insertAudit.run(at, event, deviceId, JSON.stringify(detail));
      // Bounded: a device flooding refused frames must not grow the database without limit.
      if (++auditInserts % 500 === 0) q.pruneAudit.run(keepRows);
    },
    listAudit: () =>
      (
        q.listAudit.all() as {
          at: number;
          event: string;
          device_id: string | null;
          detail: string;
        }[]
      ).map((r) => ({
        at: r.at,
        event: r.event,
        ...(r.device_id === null ? {} : { deviceId: r.device_id }),
        ...(JSON.parse(r.detail) as object),
      })),
    close: () => db.close(),
  };
};
export type Registry = ReturnType<typeof makeRegistry>;
