import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { realTimers } from '../../timers.ts';
import { makeTmpDirs } from '../../../testkit/tmp.ts';
import { makeGroupJournal } from './group-journal.ts';
import { once } from 'node:events';
import { planCommandTags, spawnGroup } from './group.ts';
import { isGroupGone, isProcessAlive, readProcStat, startTicksAt } from './proc-stat.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());

describe('leftovers of a killed executor (R3, X3)', () => {
  it('R3: a new executor kills the process groups its killed predecessor had started', async () => {
    const dir = join(tmp.make(), 'groups');
    // The "old executor" starts a group and dies without cleaning up (the journal keeps it).
    const child = spawn('/bin/sh', ['-c', 'sleep 999 & sleep 999'], {
      detached: true,
      stdio: 'ignore',
    });
    await new Promise((r) => child.once('spawn', r));
    const pgid = child.pid as number;
    makeGroupJournal(dir)
      .open({ mark: 'a'.repeat(32), cgroup: null })
      .started(pgid, readProcStat(pgid)?.startTime ?? '');
    expect(isGroupGone(pgid)).toBe(false);
    const reaped = await makeGroupJournal(dir).reapLeftovers(500, realTimers);
    expect(reaped).toBe(1);
    expect(isGroupGone(pgid)).toBe(true);
    // Recorded once, handled once: the next start finds nothing.
    expect(await makeGroupJournal(dir).reapLeftovers(500, realTimers)).toBe(0);
  });

  it('a recorded pid now used by an unrelated process (other start time) is left alone', async () => {
    const dir = join(tmp.make(), 'groups');
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid as number;
    // The journalled process started at tick 1: not this one.
    makeGroupJournal(dir)
      .open({ mark: 'b'.repeat(32), cgroup: null })
      .started(pid, '1');
    expect(await makeGroupJournal(dir).reapLeftovers(500, realTimers)).toBe(0);
    expect(isGroupGone(pid)).toBe(false);
    process.kill(-pid, 'SIGKILL');
  });

  it("H7b: a new executor also kills what a killed predecessor's command moved out of its group", async () => {
    const dir = join(tmp.make(), 'groups');
    for (const recordLeader of [true, false]) {
      // Without the leader recorded (a crash between spawn and record), the mark alone finds it.
      const tags = planCommandTags(null);
      const entry = makeGroupJournal(dir).open(tags);
      const g = await spawnGroup('/bin/sh', "sh -c 'setsid sleep 300 & echo $!'; sleep 300", {
        cwd: tmp.make(),
        env: { PATH: process.env.PATH },
        tags,
      });
      if ('error' in g) throw g.error;
      if (recordLeader) entry.started(g.pgid, g.startTime);
      const escaped = Number((await once(g.stdout, 'data')).toString());
      // Wait for setsid: the process leads a session and group of its own.
      while (readProcStat(escaped)?.pgrp !== escaped) await new Promise((r) => setImmediate(r));
      expect(isProcessAlive(escaped)).toBe(true);
      expect(await makeGroupJournal(dir).reapLeftovers(500, realTimers)).toBe(1);
      expect(isProcessAlive(escaped)).toBe(false);
      expect(isGroupGone(g.pgid)).toBe(true);
    }
  });

  it('H7b: an entry without a leader bounds the search by its write time, never excluding a later process', async () => {
    const written = Date.now();
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid as number;
    expect(Number(readProcStat(pid)?.startTime)).toBeGreaterThanOrEqual(startTicksAt(written));
    // …while what ran long before (PID 1, at boot) stays out of it on a machine up for minutes.
    const uptimeMs = Number(readFileSync('/proc/uptime', 'latin1').split(' ')[0]) * 1000;
    if (uptimeMs > 5 * 60_000) {
      expect(Number(readProcStat(1)?.startTime)).toBeLessThan(startTicksAt(written));
    }
    process.kill(-pid, 'SIGKILL');
  });
});
