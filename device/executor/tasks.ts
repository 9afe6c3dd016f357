// One instruction → one task with exactly one terminal outcome (§3, §5.4). The kinds the
// executor declares are switched over exhaustively; the two it does not declare answer
// not_supported (X5: absence is absence, nothing is emulated).
import type { DeviceInstructionFrame, DeviceInstructionKind, PayloadFrame } from '../wire/index.ts';
import { parseInstructionArgs } from '../wire/index.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import { makeChunker, type OutChunk } from './exec/chunker.ts';
import type { Flow } from './exec/flow.ts';
import { runExec, type StopReason } from './exec/run-exec.ts';
import type { Containment } from './fs/contain.ts';
import { createDir, createTempDir, createTempFile, remove } from './fs/mutate-ops.ts';
import { runRead } from './fs/read-ops.ts';
import { canonicalPath, exists, fileInfo, listDir, readLink } from './fs/stat-ops.ts';
import type { TempJournal } from './fs/temp-journal.ts';
import { CHUNK_COALESCE_MS } from './limits.ts';
import { fail, type Outcome } from './outcome.ts';
import { writeTask } from './tasks-write.ts';
import type { GroupJournal } from './proc/group-journal.ts';

/** §3.2: declared once, never varied between connections. */
export const SUPPORTED_KINDS = [
  'exec',
  'execStream',
  'readTextFile',
  'readTextLines',
  'readBinaryFile',
  'writeFile',
  'writeFileExclusive',
  'appendFile',
  'fileInfo',
  'listDir',
  'canonicalPath',
  'exists',
  'readLink',
  'createDir',
  'remove',
  'createTempDir',
  'createTempFile',
] as const satisfies readonly DeviceInstructionKind[];

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
  readonly clock: Clock;
  readonly flow: Flow;
  readonly groups: GroupJournal;
  readonly cgroupBase: string | null;
  readonly temps: TempJournal;
  readonly emitChunk: (instructionId: string, chunk: OutChunk) => void;
};

export type Task = {
  readonly id: string;
  readonly kind: DeviceInstructionKind;
  readonly done: Promise<Outcome>;
  stop(reason: StopReason): void;
  payload(frame: PayloadFrame): void;
};

const immediate = (frame: DeviceInstructionFrame, outcome: Promise<Outcome>): Task => ({
  id: frame.instructionId,
  kind: frame.kind,
  done: outcome,
  stop: () => {},
  payload: () => {},
});

/** Runs op on the walked path when containment serves the caller's path (H7a). */
const checked = async (
  ctx: TaskContext,
  path: string,
  followFinal: boolean,
  op: (real: string) => Promise<Outcome>,
): Promise<Outcome> => {
  const served = await ctx.containment.check(path, { followFinal });
  return served.ok ? op(served.real) : served;
};

export const startTask = (frame: DeviceInstructionFrame, ctx: TaskContext): Task => {
  const kind = frame.kind;
  if (!(SUPPORTED_KINDS as readonly string[]).includes(kind)) {
    return immediate(
      frame,
      Promise.resolve(fail('not_supported', `this executor does not implement ${kind}`)),
    );
  }
  const parsed = parseInstructionArgs(kind, frame.args);
  if (!parsed.ok) return immediate(frame, Promise.resolve(fail('invalid', parsed.message)));
  const a = parsed.value as Record<string, unknown>;
  const path = a.path as string;
  switch (kind as (typeof SUPPORTED_KINDS)[number]) {
    case 'exec':
    case 'execStream':
      return execTask(frame, a.command as string, ctx);
    case 'readTextFile':
    case 'readBinaryFile':
      return readTask(frame, path, undefined, ctx);
    case 'readTextLines':
      return readTask(
        frame,
        path,
        { offset: (a.offset as number | undefined) ?? 0, limit: a.limit as number | undefined },
        ctx,
      );
    case 'writeFile':
      return writeTask(frame, a, 'replace', ctx);
    case 'writeFileExclusive':
      return writeTask(frame, a, 'exclusive', ctx);
    case 'appendFile':
      return writeTask(frame, a, 'append', ctx);
    case 'fileInfo':
      return immediate(
        frame,
        checked(ctx, path, false, (real) => fileInfo(path, real)),
      );
    case 'listDir':
      return immediate(
        frame,
        checked(ctx, path, true, (real) => listDir(path, real)),
      );
    case 'canonicalPath':
      return immediate(
        frame,
        checked(ctx, path, true, (real) => canonicalPath(path, real)),
      );
    case 'exists':
      return immediate(
        frame,
        checked(ctx, path, false, (real) => exists(path, real)),
      );
    case 'readLink':
      return immediate(
        frame,
        checked(ctx, path, false, (real) => readLink(path, real)),
      );
    case 'createDir':
      return immediate(
        frame,
        checked(ctx, path, false, (real) =>
          createDir(path, real, (a.recursive as boolean | undefined) ?? true),
        ),
      );
    case 'remove':
      return immediate(
        frame,
        checked(ctx, path, false, (real) =>
          remove(
            path,
            real,
            (a.recursive as boolean | undefined) ?? false,
            ctx.containment.isRoot(path) || ctx.containment.isRoot(real),
          ),
        ),
      );
    case 'createTempDir':
      return immediate(frame, createTempDir(ctx.tempRoot, a.prefix));
    case 'createTempFile':
      return immediate(frame, createTempFile(ctx.tempRoot, a.prefix, a.suffix));
  }
};

const chunkerFor = (frame: DeviceInstructionFrame, ctx: TaskContext, cap: number) =>
  makeChunker({
    maxBytesPerStream: cap,
    emit: (c) => ctx.emitChunk(frame.instructionId, c),
    clock: ctx.clock,
    coalesceMs: CHUNK_COALESCE_MS,
  });

const execTask = (frame: DeviceInstructionFrame, command: string, ctx: TaskContext): Task => {
  const cwd = frame.cwd ?? ctx.workspaceRoot;
  let stopReason: StopReason | null = null;
  let run: ReturnType<typeof runExec> | null = null;
  const done = (async (): Promise<Outcome> => {
    const served = await ctx.containment.check(cwd, { followFinal: true });
    if (!served.ok) return served;
    if (stopReason)
      return stopReason === 'timeout'
        ? fail('timeout', 'timed out before start')
        : { ok: true, kind: 'cancelled', state: 'not_started' };
    run = runExec({
      command,
      cwd: served.real,
      // §6.8: shellEnv over the executor's environment, for this command only.
      env: { ...ctx.baseEnv, ...(frame.shellEnv ?? {}) },
      timeoutMs: frame.timeoutMs,
      shell: ctx.shell,
      killGraceMs: ctx.limits.killGraceMs,
      clock: ctx.clock,
      chunker: chunkerFor(frame, ctx, ctx.limits.maxOutputBytesPerStream),
      flow: ctx.flow,
      journal: ctx.groups,
      cgroupBase: ctx.cgroupBase,
    });
    return run.done;
  })();
  return {
    id: frame.instructionId,
    kind: frame.kind,
    done,
    stop(reason) {
      stopReason ??= reason;
      run?.stop(reason);
    },
    payload: () => {},
  };
};

const readTask = (
  frame: DeviceInstructionFrame,
  path: string,
  lines: { offset: number; limit: number | undefined } | undefined,
  ctx: TaskContext,
): Task => {
  let stopReason: StopReason | null = null;
  let run: ReturnType<typeof runRead> | null = null;
  let timer: TimerHandle | undefined;
  const done = (async (): Promise<Outcome> => {
    const served = await ctx.containment.check(path, { followFinal: true });
    if (!served.ok) return served;
    if (stopReason) return { ok: true, kind: 'cancelled', state: 'not_started' };
    run = runRead({
      path,
      real: served.real,
      maxReadBytes: ctx.limits.maxReadBytes,
      chunker: chunkerFor(frame, ctx, Number.MAX_SAFE_INTEGER),
      flow: ctx.flow,
      ...(lines ? { lines } : {}),
    });
    timer = ctx.clock.after(frame.timeoutMs, () => run?.stop('timeout'));
    try {
      return await run.done;
    } finally {
      timer.cancel();
    }
  })();
  return {
    id: frame.instructionId,
    kind: frame.kind,
    done,
    stop(reason) {
      stopReason ??= reason;
      run?.stop(reason);
    },
    payload: () => {},
  };
};
