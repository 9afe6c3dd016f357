// A killed executor (kill -9, a crash) cannot kill the commands it started, and the server has
// written that work off (R3). The journal lets the next executor finish the job at start. Each
// command is a file named by its mark (H7b), written before it is spawned — so a crash between
// the spawn and the record still leaves a way to find it — then completed with the leader's pid
// and start time, and removed once everything of the command is gone.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Timers } from '../../timers.ts';
import { removeCommandCgroup } from './cgroup.ts';
import type { CommandTags } from './group.ts';
import { readProcStat, startTicksAt } from './proc-stat.ts';
import { killCommand, makeMemberFinder, type CommandRef } from './tree.ts';

export type JournalEntry = {
  /** The leader is running: its group and start time join the entry. */
  started(pgid: number, startTime: string): void;
  /** Everything of the command is gone (or it never started). */
  close(): void;
};

export type GroupJournal = {
  open(tags: CommandTags): JournalEntry;
  /** Kills every recorded command still alive; returns how many had live processes. */
  reapLeftovers(graceMs: number, clock: Timers): Promise<number>;
};

const MARK = /^[0-9a-f]{32}$/;
/** An entry of an executor from before marks existed: `<pgid>-<startTime>`, the group alone. */
const GROUP_ONLY = /^(\d+)-(\d+)$/;

type Stored = CommandTags & { readonly pgid?: number; readonly startTime?: string };

const readEntry = (file: string): Stored | null => {
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as Partial<Stored>;
    if (typeof v.mark !== 'string' || !MARK.test(v.mark)) return null;
    return {
      mark: v.mark,
      cgroup: typeof v.cgroup === 'string' ? v.cgroup : null,
      ...(Number.isSafeInteger(v.pgid) && typeof v.startTime === 'string'
        ? { pgid: v.pgid as number, startTime: v.startTime }
        : {}),
    };
  } catch {
    return null;
  }
};

/** The command an entry describes, as tree.ts finds it. */
const refOf = (e: Stored, writtenMs: number): CommandRef => {
  if (e.pgid === undefined || e.startTime === undefined) {
    // Crashed before the leader was recorded: only the mark and the cgroup can find it, among
    // processes started after the entry was written.
    return { pgid: null, leaderStart: startTicksAt(writtenMs), mark: e.mark, cgroup: e.cgroup };
  }
  const leader = readProcStat(e.pgid);
  // A leader alive under another start time means the pid was reused: that group is not
  // ours, but the mark and the cgroup still are.
  const groupOurs = leader === null || leader.startTime === e.startTime || leader.state === 'Z';
  return {
    pgid: groupOurs ? e.pgid : null,
    leaderStart: Number(e.startTime) || 0,
    mark: e.mark,
    cgroup: e.cgroup,
  };
};

export const makeGroupJournal = (dir: string): GroupJournal => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return {
    open(tags) {
      const file = join(dir, tags.mark);
      writeFileSync(file, JSON.stringify(tags));
      return {
        started: (pgid, startTime) =>
          writeFileSync(file, JSON.stringify({ ...tags, pgid, startTime })),
        close: () => rmSync(file, { force: true }),
      };
    },
    async reapLeftovers(graceMs, clock) {
      let reaped = 0;
      for (const name of readdirSync(dir)) {
        const old = GROUP_ONLY.exec(name);
        const entry = old
          ? { mark: '', cgroup: null, pgid: Number(old[1]), startTime: old[2] as string }
          : MARK.test(name)
            ? readEntry(join(dir, name))
            : null;
        if (entry) {
          const ref = refOf(entry, statSync(join(dir, name)).mtimeMs);
          const find = makeMemberFinder(ref);
          if (find().length > 0) {
            reaped += 1;
            await killCommand(ref, graceMs, clock, find);
          }
          // A cgroup that cannot be removed yet (a process still leaving it) keeps its entry
          // for the next start, rather than being forgotten with it.
          if (ref.cgroup && !removeCommandCgroup(ref.cgroup)) continue;
        }
        rmSync(join(dir, name), { force: true });
      }
      return reaped;
    },
  };
};
