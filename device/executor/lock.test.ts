import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { acquireInstanceLock, lockPath } from './lock.ts';
import { readProcStat } from './proc/proc-stat.ts';
import { makeTmpDirs } from '../../testkit/tmp.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());
const ID = 'dev_01J8ZQ4T9X0000000000000000';

describe('single-instance lock (R10, §6.10)', () => {
  it('a second holder for the same deviceId is refused with a clear message naming the holder', () => {
    const dir = tmp.make();
    const first = acquireInstanceLock(dir, ID);
    expect(first.ok).toBe(true);
    const second = acquireInstanceLock(dir, ID);
    expect(second).toMatchObject({ ok: false, holder: { pid: process.pid } });
    expect(second.ok ? '' : second.message).toContain(`pid ${process.pid}`);
    // Another device id on the same machine is independent.
    expect(acquireInstanceLock(dir, 'dev_01J8ZQ4T9X0000000000000001').ok).toBe(true);
    if (first.ok) first.lock.release();
    expect(existsSync(lockPath(dir, ID))).toBe(false);
    expect(acquireInstanceLock(dir, ID).ok).toBe(true);
  });

  it('a lock left by a killed process is taken over', async () => {
    const dir = tmp.make();
    const child = spawn('sleep', ['30']);
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid as number;
    writeFileSync(lockPath(dir, ID), `${pid} ${readProcStat(pid)?.startTime}\n`);
    expect(acquireInstanceLock(dir, ID).ok).toBe(false); // alive: respected
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const taken = acquireInstanceLock(dir, ID);
    expect(taken).toMatchObject({ ok: true, tookOverFrom: { pid } });
    expect(readFileSync(lockPath(dir, ID), 'utf8')).toBe(
      `${process.pid} ${readProcStat(process.pid)?.startTime}\n`,
    );
  });

  it('a lock naming a reused pid (same pid, other start time) is stale', () => {
    const dir = tmp.make();
    writeFileSync(lockPath(dir, ID), `${process.pid} 1\n`);
    expect(acquireInstanceLock(dir, ID)).toMatchObject({
      ok: true,
      tookOverFrom: { pid: process.pid, startTime: '1' },
    });
  });
});
