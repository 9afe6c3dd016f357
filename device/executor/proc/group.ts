// X3 + H7b: every command runs as the leader of a new session and process group, carries a
// random mark in its environment, and — where the executor may create cgroups — starts inside a
// cgroup of its own, so cancel, timeout and the generation fence can find and kill everything it
// started (tree.ts), including what left the group.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CGROUP_WRAPPER_SCRIPT,
  CGROUP_WRAPPER_SHELL,
  commandCgroupPath,
  createCommandCgroup,
  procsFile,
} from './cgroup.ts';
import { readProcStat } from './proc-stat.ts';
import { EXEC_MARK_ENV, type CommandRef } from './tree.ts';

export type GroupExit = { readonly code: number | null; readonly signal: NodeJS.Signals | null };

export type SpawnedGroup = {
  readonly pgid: number;
  readonly startTime: string;
  readonly ref: CommandRef;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** The shell (group leader) exited; Node reaps it. */
  readonly exited: Promise<GroupExit>;
};

export type SpawnFailure = { readonly error: NodeJS.ErrnoException };

/** What besides the group finds a command's processes (tree.ts). */
export type CommandTags = { readonly mark: string; readonly cgroup: string | null };

/**
 * A fresh mark, and where cgroupBase allows one, the path of the command's cgroup — not made yet:
 * the journal records it first, so no crash can leave a cgroup nobody knows about.
 */
export const planCommandTags = (cgroupBase: string | null): CommandTags => {
  const mark = randomBytes(16).toString('hex');
  return { mark, cgroup: cgroupBase ? commandCgroupPath(cgroupBase, mark) : null };
};

/** Makes the planned cgroup; the tags without it when it cannot be made. */
export const createPlannedCgroup = (tags: CommandTags): CommandTags =>
  tags.cgroup && createCommandCgroup(tags.cgroup) ? tags : { mark: tags.mark, cgroup: null };

/**
 * Spawns `shell -c command` as the leader of a new process group. With a cgroup, a small
 * /bin/sh first moves itself into a fresh cgroup and then execs the shell in its place (same
 * pid, same argv for the shell), so not one fork of the command happens outside the cgroup.
 */
export const spawnGroup = (
  shell: string,
  command: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; tags: CommandTags },
): Promise<SpawnedGroup | SpawnFailure> =>
  new Promise((resolve) => {
    const { mark, cgroup } = opts.tags;
    const [file, args] = cgroup
      ? [
          CGROUP_WRAPPER_SHELL,
          ['-c', CGROUP_WRAPPER_SCRIPT, 'dsh-exec', procsFile(cgroup), shell, command],
        ]
      : [shell, ['-c', command]];
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(file, args, {
        cwd: opts.cwd,
        // The mark goes last: shellEnv cannot replace it.
        env: { ...opts.env, [EXEC_MARK_ENV]: mark },
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      resolve({ error: e as NodeJS.ErrnoException });
      return;
    }
    const exited = new Promise<GroupExit>((res) =>
      child.once('exit', (code, signal) => res({ code, signal })),
    );
    child.once('error', (error: NodeJS.ErrnoException) => resolve({ error }));
    child.once('spawn', () => {
      const pid = child.pid as number;
      const startTime = readProcStat(pid)?.startTime ?? '';
      resolve({
        pgid: pid,
        startTime,
        ref: { pgid: pid, leaderStart: Number(startTime) || 0, mark, cgroup },
        stdout: child.stdout,
        stderr: child.stderr,
        exited,
      });
    });
  });
