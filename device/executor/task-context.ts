// What every task of a serving executor may use, from its options and the journals it opened.
import type { Timers } from '../timers.ts';
import type { OutChunk } from './exec/chunker.ts';
import type { Flow } from './exec/flow.ts';
import { makeContainment } from './fs/contain.ts';
import type { TempJournal } from './fs/temp-journal.ts';
import * as L from './limits.ts';
import type { GroupJournal } from './proc/group-journal.ts';
import type { TaskContext } from './task.ts';
import type { ExecutorOptions } from './types.ts';

/** X2: the executor's own settings never reach a child's environment. */
const childEnv = (env: NodeJS.ProcessEnv): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('DSH_DEVICE_')));

export const makeTaskContext = (p: {
  opts: ExecutorOptions;
  clock: Timers;
  flow: Flow;
  workspaceRoot: string;
  tempRoot: string;
  temps: TempJournal;
  groups: GroupJournal;
  cgroupBase: string | null;
  emitChunk: (instructionId: string, chunk: OutChunk) => void;
}): TaskContext => {
  const { opts } = p;
  return {
    containment: makeContainment([p.workspaceRoot, p.tempRoot], opts.keyDir),
    workspaceRoot: p.workspaceRoot,
    tempRoot: p.tempRoot,
    shell: opts.shell ?? process.env.SHELL ?? '/bin/sh',
    baseEnv: childEnv(opts.env ?? process.env),
    limits: {
      maxOutputBytesPerStream:
        opts.maxOutputBytesPerStream ?? L.DEFAULT_MAX_OUTPUT_BYTES_PER_STREAM,
      maxReadBytes: opts.maxReadBytes ?? L.DEFAULT_MAX_READ_BYTES,
      maxWriteBytes: opts.maxWriteBytes ?? L.DEFAULT_MAX_WRITE_BYTES,
      minFreeBytes: opts.minFreeBytes ?? L.MIN_FREE_BYTES_AFTER_WRITE,
      killGraceMs: opts.killGraceMs ?? L.DEFAULT_KILL_GRACE_MS,
    },
    clock: p.clock,
    flow: p.flow,
    groups: p.groups,
    cgroupBase: p.cgroupBase,
    temps: p.temps,
    emitChunk: p.emitChunk,
  };
};
