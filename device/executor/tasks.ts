// One instruction → one task with exactly one terminal outcome (§3, §5.4). Each kind the executor
// declares has a starter (STARTERS, exhaustive by type) that takes the args as the wire parser
// typed them; the two it does not declare answer not_supported (X5: absence is absence, nothing
// is emulated).
import type {
  DeviceInstructionFrame,
  DeviceInstructionKind,
  InstructionArgsByKind,
  PathArgs,
} from '../wire/index.ts';
import { parseInstructionArgs } from '../wire/index.ts';
import type { TimerHandle } from '../timers.ts';
import { makeChunker } from './exec/chunker.ts';
import { runExec, type StopReason } from './exec/run-exec.ts';
import { createDir, createTempDir, createTempFile, remove } from './fs/mutate-ops.ts';
import { runRead } from './fs/read-ops.ts';
import { canonicalPath, exists, fileInfo, listDir, readLink } from './fs/stat-ops.ts';
import { CHUNK_COALESCE_MS } from './limits.ts';
import { fail, type Outcome } from './outcome.ts';
import type { Task, TaskContext } from './task.ts';
import { writeTask } from './tasks-write.ts';

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
type SupportedKind = (typeof SUPPORTED_KINDS)[number];
const isSupported = (kind: DeviceInstructionKind): kind is SupportedKind =>
  (SUPPORTED_KINDS as readonly string[]).includes(kind);

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

/** An answer computed once, with no stream and nothing to stop, for a path containment serves. */
const onPath =
  (followFinal: boolean, op: (path: string, real: string) => Promise<Outcome>) =>
  (frame: DeviceInstructionFrame, args: PathArgs, ctx: TaskContext): Task =>
    immediate(
      frame,
      checked(ctx, args.path, followFinal, (real) => op(args.path, real)),
    );

type Starter<K extends SupportedKind> = (
  frame: DeviceInstructionFrame,
  args: InstructionArgsByKind[K],
  ctx: TaskContext,
) => Task;

/** How each declared kind starts, given its args as the wire parser typed them. */
const STARTERS: { [K in SupportedKind]: Starter<K> } = {
  exec: (frame, args, ctx) => execTask(frame, args.command, ctx),
  execStream: (frame, args, ctx) => execTask(frame, args.command, ctx),
  readTextFile: (frame, args, ctx) => readTask(frame, args.path, undefined, ctx),
  readBinaryFile: (frame, args, ctx) => readTask(frame, args.path, undefined, ctx),
  readTextLines: (frame, args, ctx) =>
    readTask(frame, args.path, { offset: args.offset ?? 0, limit: args.limit }, ctx),
  writeFile: (frame, args, ctx) => writeTask(frame, args, 'replace', ctx),
  writeFileExclusive: (frame, args, ctx) => writeTask(frame, args, 'exclusive', ctx),
  appendFile: (frame, args, ctx) => writeTask(frame, args, 'append', ctx),
  fileInfo: onPath(false, fileInfo),
  listDir: onPath(true, listDir),
  canonicalPath: onPath(true, canonicalPath),
  exists: onPath(false, exists),
  readLink: onPath(false, readLink),
  createDir: (frame, args, ctx) =>
    immediate(
      frame,
      checked(ctx, args.path, false, (real) => createDir(args.path, real, args.recursive ?? true)),
    ),
  remove: (frame, args, ctx) =>
    immediate(
      frame,
      checked(ctx, args.path, false, (real) =>
        remove(
          args.path,
          real,
          args.recursive ?? false,
          ctx.containment.isRoot(args.path) || ctx.containment.isRoot(real),
        ),
      ),
    ),
  createTempDir: (frame, args, ctx) => immediate(frame, createTempDir(ctx.tempRoot, args.prefix)),
  createTempFile: (frame, args, ctx) =>
    immediate(frame, createTempFile(ctx.tempRoot, args.prefix, args.suffix)),
};

const startSupported = <K extends SupportedKind>(
  kind: K,
  frame: DeviceInstructionFrame,
  ctx: TaskContext,
): Task => {
  const parsed = parseInstructionArgs(kind, frame.args);
  if (!parsed.ok) return immediate(frame, Promise.resolve(fail('invalid', parsed.message)));
  const start: Starter<K> = STARTERS[kind];
  return start(frame, parsed.value, ctx);
};

export const startTask = (frame: DeviceInstructionFrame, ctx: TaskContext): Task =>
  isSupported(frame.kind)
    ? startSupported(frame.kind, frame, ctx)
    : immediate(
        frame,
        Promise.resolve(fail('not_supported', `this executor does not implement ${frame.kind}`)),
      );

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
    timer = ctx.clock.setTimeout(() => run?.stop('timeout'), frame.timeoutMs);
    try {
      return await run.done;
    } finally {
      ctx.clock.clearTimeout(timer);
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
