// The write family as a task (§3.4): the instruction opens a temp file beside the target, the
// payload frames that follow fill it in order, and commit verifies and places it atomically. A
// stop before commit removes the temp file (the target was never touched); during commit, the
// commit finishes and its outcome stands.
import type { DeviceInstructionFrame, PayloadFrame, WriteArgs } from '../wire/index.ts';
import { startWrite, type PendingWrite, type WriteMode } from './fs/atomic-write.ts';
import { fail, type Failure, type Outcome } from './outcome.ts';
import type { Task, TaskContext } from './task.ts';

export const writeTask = (
  frame: DeviceInstructionFrame,
  args: WriteArgs,
  mode: WriteMode,
  ctx: TaskContext,
): Task => {
  const { path } = args;
  let settled = false;
  let committing = false;
  let settle!: (o: Outcome) => void;
  const done = new Promise<Outcome>((r) => (settle = r));
  const finish = (o: Outcome) => {
    if (settled) return;
    settled = true;
    ctx.clock.clearTimeout(timer);
    settle(o);
  };
  const writer: Promise<PendingWrite | Failure> = (async () => {
    const served = await ctx.containment.check(path, { followFinal: mode !== 'exclusive' });
    if (!served.ok) return served;
    return startWrite(
      {
        path,
        real: served.real,
        finalLink: served.finalLink,
        contentLen: args.contentLen,
        sha256: args.sha256,
        mode,
      },
      { maxWriteBytes: ctx.limits.maxWriteBytes, minFreeBytes: ctx.limits.minFreeBytes },
      ctx.temps,
    );
  })();
  void writer.then((w) => {
    if ('ok' in w) finish(w);
  });
  let queue: Promise<unknown> = writer;
  const abortWith = async (o: Outcome) => {
    const w = await writer;
    if (!('ok' in w)) await w.abort();
    finish(o);
  };
  const timer = ctx.clock.setTimeout(() => {
    if (!committing)
      void abortWith(
        fail('timeout', `the payload did not complete within timeoutMs; ${path} untouched`),
      );
  }, frame.timeoutMs);

  const handle = async (f: PayloadFrame): Promise<void> => {
    const w = await writer;
    if (settled || 'ok' in w) return;
    let problem: Failure | null = null;
    if (f.part === 'begin') problem = w.begin(f.totalLen, f.sha256);
    else if (f.part === 'chunk')
      problem = await w.chunk(f.offset, Buffer.from(f.dataB64 ?? '', 'base64'));
    else {
      committing = true;
      return finish(await w.commit(f.totalLen, f.sha256));
    }
    if (problem) await abortWith(problem);
  };

  return {
    id: frame.instructionId,
    kind: frame.kind,
    done,
    stop(reason) {
      if (settled || committing) return;
      void abortWith(
        reason === 'timeout'
          ? fail('timeout', `stopped at timeoutMs; ${path} untouched`)
          : reason === 'shutdown'
            ? fail(
                'target_unavailable',
                `the executor shut down before the write; ${path} untouched`,
              )
            : { ok: true, kind: 'cancelled', state: 'not_started' },
      );
    },
    payload(f) {
      queue = queue
        .then(() => handle(f))
        .catch(() =>
          abortWith(fail('unknown', `the write to ${path} failed unexpectedly; target untouched`)),
        );
    },
  };
};
