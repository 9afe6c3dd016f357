// The frames of a live connection, taken in: an instruction starts a task once per epoch (X6), or
// is failed explicitly after goodbye (§1.6); payload frames go to their write; cancel stops a
// task, or settles one never received as not started; acks go to the outbox. Each task's one
// outcome is settled here, with its deviceSeq (R6), and sent at once when connected.
import type { DeviceInstructionFrame } from '../wire/index.ts';
import type { Connection, SteadyFrame } from './connection.ts';
import type { Logger } from './log.ts';
import type { Outbox } from './outbox.ts';
import { fitsInFrame, resultText } from './outbound.ts';
import { fail, type Outcome } from './outcome.ts';
import type { ServeState } from './serve-state.ts';
import type { TaskContext } from './task.ts';
import { startTask } from './tasks.ts';
import type { ExecutorEvent } from './types.ts';

export const makeInstructionIntake = (deps: {
  state: ServeState;
  ctx: TaskContext;
  outbox: Outbox;
  log: Logger;
  emit: (e: ExecutorEvent) => void;
  /** Called after each settle and resultAck while stopping (R15 waits for both). */
  onShutdownProgress: () => void;
}) => {
  const { state, outbox, log, emit } = deps;
  let deviceSeq = 0;

  const sendResultNow = (id: string) => {
    const conn = state.conn;
    if (!conn?.active) return false;
    const r = outbox.takeResultForSend(id);
    return r !== null && conn.send(resultText(conn.gen as string, id, r));
  };

  const settle = (id: string, answer: Outcome) => {
    state.tasks.delete(id);
    if (state.writtenOff.has(id)) return;
    const outcome = fitsInFrame(answer);
    // R6: one deviceSeq per result, reused for every retransmission.
    outbox.setResult(id, deviceSeq++, outcome);
    const sent = sendResultNow(id);
    log('info', 'instruction.settled', {
      instructionId: id,
      ok: outcome.ok,
      code: outcome.ok ? outcome.kind : outcome.errorCode,
    });
    emit({ type: 'settled', instructionId: id, outcome, sent });
    if (state.stopping) deps.onShutdownProgress();
  };

  const accept = (frame: DeviceInstructionFrame) => {
    const id = frame.instructionId;
    if (state.seen.has(id)) {
      log('warn', 'instruction.duplicate_ignored', { instructionId: id });
      emit({ type: 'duplicate', instructionId: id });
      return;
    }
    state.seen.add(id);
    log('info', 'instruction.received', { instructionId: id, kind: frame.kind });
    emit({ type: 'instruction', instructionId: id, kind: frame.kind });
    if (state.stopping) {
      // §1.6: arriving after goodbye is normal; it is failed explicitly, never dropped.
      settle(
        id,
        fail(
          'target_unavailable',
          'the executor is shutting down; the instruction was not started',
        ),
      );
      return;
    }
    const task = startTask(frame, deps.ctx);
    state.tasks.set(id, task);
    void task.done.then(
      (o) => settle(id, o),
      () => settle(id, fail('unknown', `${frame.kind} failed unexpectedly inside the executor`)),
    );
  };

  const cancel = (id: string) => {
    const task = state.tasks.get(id);
    if (task) {
      if (!state.cancelled.has(id)) {
        state.cancelled.add(id);
        log('info', 'instruction.cancel', { instructionId: id });
        task.stop('cancel');
      }
    } else if (!state.seen.has(id)) {
      // Never received: nothing ran, and nothing ever will (it joins the seen-set).
      state.seen.add(id);
      settle(id, { ok: true, kind: 'cancelled', state: 'not_started' });
    }
  };

  const frame = (f: SteadyFrame) => {
    switch (f.t) {
      case 'instruction':
        return accept(f);
      case 'payload':
        return state.tasks.get(f.instructionId)?.payload(f);
      case 'cancel':
        return cancel(f.instructionId);
      case 'resultAck':
        outbox.resultAck(f.instructionId);
        if (state.stopping) deps.onShutdownProgress();
        return;
      case 'chunkAck':
        return outbox.chunkAck(f.instructionId, f.upToStreamSeq);
    }
  };

  /** A frame that failed to parse but names an instruction: answered once, never stranded. */
  const badInstruction = (
    id: string,
    gen: string,
    kindKnown: boolean,
    message: string,
    c: Connection,
  ) => {
    if (gen !== c.gen || state.seen.has(id)) return;
    state.seen.add(id);
    settle(id, fail(kindKnown ? 'invalid' : 'not_supported', message));
  };

  const inflight = () => [...state.tasks.keys()].filter((id) => !state.writtenOff.has(id));

  return { frame, badInstruction, inflight };
};
