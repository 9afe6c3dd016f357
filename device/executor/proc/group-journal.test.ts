import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { realClock } from '../clock.ts';
import { makeTmpDirs } from '../test-support/tmp.ts';
import { makeGroupJournal } from './group-journal.ts';
import { isGroupGone, readProcStat } from './proc-stat.ts';

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
    makeGroupJournal(dir).record(pgid, readProcStat(pgid)?.startTime ?? '');
    expect(isGroupGone(pgid)).toBe(false);
    const reaped = await makeGroupJournal(dir).reapLeftovers(500, realClock);
    expect(reaped).toBe(1);
    expect(isGroupGone(pgid)).toBe(true);
    // Recorded once, handled once: the next start finds nothing.
    expect(await makeGroupJournal(dir).reapLeftovers(500, realClock)).toBe(0);
  });

  it('a recorded pid now used by an unrelated process (other start time) is left alone', async () => {
    const dir = join(tmp.make(), 'groups');
    const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid as number;
    makeGroupJournal(dir).record(pid, '1'); // the journalled process started at tick 1: not this one
    expect(await makeGroupJournal(dir).reapLeftovers(500, realClock)).toBe(0);
    expect(isGroupGone(pid)).toBe(false);
    process.kill(-pid, 'SIGKILL');
  });
});
