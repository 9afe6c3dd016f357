// What a running instruction is to the executor (a task) and what every task may use. Kept apart
// from tasks.ts so the task kinds (tasks.ts, tasks-write.ts) import it without importing each other.
import type { PayloadFrame, DeviceInstructionKind } from '../wire/index.ts';
import type { Timers } from '../timers.ts';
import type { OutChunk } from './exec/chunker.ts';
import type { Flow } from './exec/flow.ts';
import type { StopReason } from './exec/run-exec.ts';
import type { Containment } from './fs/contain.ts';
import type { TempJournal } from './fs/temp-journal.ts';
import type { Outcome } from './outcome.ts';
import type { GroupJournal } from './proc/group-journal.ts';

export type TaskLimits = {
  readonly maxOutputBytesPerStream: number;
  readonly maxReadBytes: number;
  readonly maxWriteBytes: number;
  readonly minFreeBytes: number;
  readonly killGraceMs: number;
};

export type TaskContext = {
  readonly containment: Containment;
  readonly workspaceRoot: string;
  readonly tempRoot: string;
  readonly shell: string;
  readonly baseEnv: NodeJS.ProcessEnv;
  readonly limits: TaskLimits;
  readonly clock: Timers;
  readonly flow: Flow;
  readonly groups: GroupJournal;
  readonly cgroupBase: string | null;
  readonly temps: TempJournal;
  readonly emitChunk: (instructionId: string, chunk: OutChunk) => void;
};

/** One instruction being carried out, with exactly one terminal outcome (§3, §5.4). */
export type Task = {
  readonly id: string;
  readonly kind: DeviceInstructionKind;
  readonly done: Promise<Outcome>;
  stop(reason: StopReason): void;
  payload(frame: PayloadFrame): void;
};
