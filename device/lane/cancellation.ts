// R11: cancelling an instruction. A queued one settles at once as never started; a committed one
// is sent `cancel` (at most once per generation, replayed after a reconnect) and must be answered
// within cancelGraceMs, or its outcome is unknown.
import type { InstructionBook } from './instruction-book.ts';
import type { Instruction } from './instruction.ts';
import type { LaneConfig } from './options.ts';

export const makeCancellation = (book: InstructionBook, config: LaneConfig) => {
  const armCancelGrace = (instruction: Instruction) => {
    if (instruction.cancelGraceTimer) config.clock.clearTimeout(instruction.cancelGraceTimer);
    instruction.cancelGraceTimer = config.clock.setTimeout(
      () =>
        book.settleUnknown(
          instruction,
          `no terminal result within ${config.cancelGraceMs} ms of cancel`,
        ),
      config.cancelGraceMs,
    );
  };

  const sendCancel = (instruction: Instruction) => {
    const conn = book.activeConn(book.deviceEntry(instruction.deviceId));
    if (conn === undefined || instruction.cancelSentGen === conn.gen) return;
    instruction.cancelSentGen = conn.gen;
    conn.send({ t: 'cancel', gen: conn.gen, instructionId: instruction.id });
    armCancelGrace(instruction);
  };

  /** Returns false when the id is not in flight (unknown or already settled). */
  const cancel = (instructionId: string): boolean => {
    const instruction = book.unsettled.get(instructionId);
    if (instruction === undefined) return false;
    if (instruction.state === 'queued') {
      book.settle(
        instruction,
        { ok: true, kind: 'cancelled', state: 'not_started' },
        'terminal_never_started',
      );
      return true;
    }
    if (instruction.cancelRequested) return true; // idempotent
    instruction.cancelRequested = true;
    armCancelGrace(instruction);
    sendCancel(instruction);
    return true;
  };

  return { cancel, sendCancel };
};
export type Cancellation = ReturnType<typeof makeCancellation>;
