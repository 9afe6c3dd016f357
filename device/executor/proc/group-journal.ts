// A killed executor (kill -9, a crash) cannot kill the process groups it started, and the server
// has written that work off (R3). The journal lets the next executor finish the job at start:
// each running group is recorded as a file `<pgid>-<startTime>` and removed once the group is gone.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../clock.ts';
import { killGroup } from './group.ts';
import { liveGroupMembers, readProcStat } from './proc-stat.ts';

export type GroupJournal = {
  record(pgid: number, startTime: string): void;
  forget(pgid: number, startTime: string): void;
  /** Kills every recorded group still alive; returns how many had live members. */
  reapLeftovers(graceMs: number, clock: Clock): Promise<number>;
};

const ENTRY = /^(\d+)-(\d+)$/;

export const makeGroupJournal = (dir: string): GroupJournal => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = (pgid: number, startTime: string) => join(dir, `${pgid}-${startTime}`);
  return {
    record: (pgid, startTime) => writeFileSync(file(pgid, startTime), ''),
    forget: (pgid, startTime) => rmSync(file(pgid, startTime), { force: true }),
    async reapLeftovers(graceMs, clock) {
      let reaped = 0;
      for (const name of readdirSync(dir)) {
        const m = ENTRY.exec(name);
        if (!m) continue;
        const pgid = Number(m[1]);
        const leader = readProcStat(pgid);
        // A leader alive under another start time means the pid was reused: not ours.
        const ours = leader === null || leader.startTime === m[2] || leader.state === 'Z';
        if (ours && liveGroupMembers(pgid).length > 0) {
          reaped += 1;
          await killGroup(pgid, graceMs, clock);
        }
        rmSync(join(dir, name), { force: true });
      }
      return reaped;
    },
  };
};
