// R10 / §6.10: one executor per deviceId on this machine. The lock is a file holding the owner's
// pid and its /proc start time (so a reused pid is not mistaken for the owner). It is created
// with link(2) — atomic, fails if present. A lock whose owner is dead (or a zombie) is stale and
// is taken over: renamed away atomically, re-checked, then replaced.
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isProcessAlive, readProcStat } from './proc/proc-stat.ts';

export type LockHolder = { readonly pid: number; readonly startTime: string };

export type InstanceLock = { readonly path: string; release(): void };

export type LockResult =
  | { readonly ok: true; readonly lock: InstanceLock; readonly tookOverFrom: LockHolder | null }
  | { readonly ok: false; readonly holder: LockHolder; readonly message: string };

const MAX_TAKEOVER_ROUNDS = 5;

export const lockPath = (keyDir: string, deviceId: string) =>
  join(keyDir, `serve-${deviceId}.lock`);

const parseHolder = (text: string): LockHolder | null => {
  const m = /^(\d+) (\d+)\n?$/.exec(text);
  return m ? { pid: Number(m[1]), startTime: m[2] as string } : null;
};

const readHolder = (path: string): LockHolder | null | 'missing' => {
  try {
    return parseHolder(readFileSync(path, 'utf8'));
  } catch {
    return 'missing';
  }
};

const sameHolder = (a: LockHolder | null, b: LockHolder | null) =>
  a === b || (a !== null && b !== null && a.pid === b.pid && a.startTime === b.startTime);

export const acquireInstanceLock = (keyDir: string, deviceId: string): LockResult => {
  const path = lockPath(keyDir, deviceId);
  const me: LockHolder = {
    pid: process.pid,
    startTime: readProcStat(process.pid)?.startTime ?? '0',
  };
  const mine = `${me.pid} ${me.startTime}\n`;
  const temp = join(keyDir, `.lock-${randomBytes(6).toString('hex')}`);
  writeFileSync(temp, mine, { mode: 0o600 });
  let tookOverFrom: LockHolder | null = null;
  try {
    for (let round = 0; round < MAX_TAKEOVER_ROUNDS; round += 1) {
      try {
        linkSync(temp, path);
        const release = () => {
          if (sameHolder(readHolder(path) as LockHolder | null, me)) rmSync(path, { force: true });
        };
        return { ok: true, lock: { path, release }, tookOverFrom };
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = readHolder(path);
      if (holder === 'missing') continue;
      if (holder && isProcessAlive(holder.pid, holder.startTime)) {
        return {
          ok: false,
          holder,
          message: `another executor (pid ${holder.pid}) is already serving ${deviceId} on this machine; stop it first (lock ${path})`,
        };
      }
      // Stale: move it aside atomically, then make sure what we moved is the stale one we judged.
      const aside = `${path}.stale-${randomBytes(6).toString('hex')}`;
      try {
        renameSync(path, aside);
      } catch {
        continue;
      }
      const moved = readHolder(aside);
      if (moved !== 'missing' && !sameHolder(moved, holder)) {
        // We raced a process that had just taken over: put its lock back (link fails if taken).
        try {
          linkSync(aside, path);
        } catch {
          // Someone else holds it now; the next round judges that holder.
        }
      } else {
        tookOverFrom = holder;
      }
      rmSync(aside, { force: true });
    }
    return {
      ok: false,
      holder: { pid: 0, startTime: '0' },
      message: `could not take the lock ${path}: it kept changing hands`,
    };
  } finally {
    rmSync(temp, { force: true });
  }
};
