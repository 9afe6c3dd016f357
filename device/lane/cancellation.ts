// R11: cancelling an instruction. A queued one settles at once as never started; a committed one
// is sent `cancel` (at most once per generation, replayed after a reconnect) and must be answered
// within cancelGraceMs, or its outcome is unknown.
import type { InstructionBook } from './instruction-book.ts';
import type { Instruction } from './instruction.ts';
import type { LaneConfig } from './options.ts';

export const makeCancellation = (book: InstructionBook, config: LaneConfig) => {
  const armCancelGrace = (i: Instruction) => {
    i.cancelGraceTimer?.cancel();
    i.cancelGraceTimer = config.clock.after(config.cancelGraceMs, () =>
      book.settleUnknown(i, `no terminal result within ${config.cancelGraceMs} ms of cancel`),
    );
  };

  const sendCancel = (i: Instruction) => {
    const conn = book.activeConn(book.deviceEntry(i.deviceId));
    if (conn === undefined || i.cancelSentGen === conn.gen) return;
    i.cancelSentGen = conn.gen;
    conn.send({ t: 'cancel', gen: conn.gen, instructionId: i.id });
    armCancelGrace(i);
  };

  /** Returns false when the id is not in flight (unknown or already settled). */
  const cancel = (instructionId: string): boolean => {
    const i = book.unsettled.get(instructionId);
    if (i === undefined) return false;
    if (i.state === 'queued') {
      book.settle(
        i,
        { ok: true, kind: 'cancelled', state: 'not_started' },
        'terminal_never_started',
      );
      return true;
    }
    if (i.cancelRequested) return true; // idempotent
    i.cancelRequested = true;
    armCancelGrace(i);
    sendCancel(i);
    return true;
  };

  return { cancel, sendCancel };
};
export type Cancellation = ReturnType<typeof makeCancellation>;
