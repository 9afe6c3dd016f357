// runExec against real processes for the exec tests: output collected as chunks, a journal in
// a temp folder, the clock and the cgroup base of the test's choosing.
import { join } from 'node:path';
import { realTimers, type Timers } from '../../timers.ts';
import { makeChunker, type OutChunk } from '../exec/chunker.ts';
import { openFlow } from '../exec/flow.ts';
import { runExec } from '../exec/run-exec.ts';
import { makeGroupJournal } from '../proc/group-journal.ts';
import type { makeTmpDirs } from '../../../testkit/tmp.ts';

export type ExecStartOptions = {
  timeoutMs?: number;
  clock?: Timers;
  cap?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  shell?: string;
  cgroupBase?: string | null;
};

export const makeExecStarter =
  (tmp: ReturnType<typeof makeTmpDirs>) =>
  (command: string, o: ExecStartOptions = {}) => {
    const dir = o.cwd ?? tmp.make();
    const chunks: OutChunk[] = [];
    const clock = o.clock ?? realTimers;
    const chunker = makeChunker({
      maxBytesPerStream: o.cap ?? 1 << 30,
      emit: (c) => chunks.push(c),
      clock,
      coalesceMs: 0,
    });
    const run = runExec({
      command,
      cwd: dir,
      env: o.env ?? { PATH: process.env.PATH },
      timeoutMs: o.timeoutMs ?? 10_000,
      shell: o.shell ?? '/bin/sh',
      killGraceMs: 1000,
      clock,
      chunker,
      flow: openFlow,
      journal: makeGroupJournal(join(tmp.make(), 'groups')),
      cgroupBase: o.cgroupBase ?? null,
    });
    return { run, chunks, dir };
  };

export const bytesOf = (chunks: OutChunk[], kind: 'stdout' | 'stderr') =>
  Buffer.concat(chunks.flatMap((c) => (c.kind === kind ? [Buffer.from(c.b64, 'base64')] : [])));

/** Resolves once the command printed `lines` lines on stdout. */
export const printed = async (chunks: OutChunk[], lines: number): Promise<string[]> => {
  for (;;) {
    const got = bytesOf(chunks, 'stdout').toString().split('\n').filter(Boolean);
    if (got.length >= lines) return got;
    await new Promise((r) => setImmediate(r));
  }
};
