// Stage 2 of §2.4 for the two frames that answer an instruction: a result or a chunk is believed
// only for a committed instruction of the same device; a late one for a settled instruction is
// acked (result) or ignored (chunk); anything a correct executor could not have sent settles the
// instruction outcome_unknown (a protocol violation) rather than being taken at its word.
import type { Buffer } from 'node:buffer';
import {
  decodeCanonicalBase64,
  EXEC_INSTRUCTION_KINDS,
  OUTCOME_KIND_FOR_INSTRUCTION,
  READ_INSTRUCTION_KINDS,
  STAT_FIELD_FOR_INSTRUCTION,
  type ChunkFrame,
  type DeviceOutcome,
  type ResultFrame,
} from '../wire/index.ts';
import type { StreamItem } from './chunk-stream.ts';
import type { InstructionBook } from './instruction-book.ts';
import type { Audit, Instruction, LaneConn } from './instruction.ts';
import type { LaneConfig } from './options.ts';

/** Why an ok:true outcome cannot be believed for this instruction, or null. */
const outcomeProblem = (instruction: Instruction, o: DeviceOutcome): string | null => {
  if (!o.ok || o.kind === 'cancelled') return null;
  const want = OUTCOME_KIND_FOR_INSTRUCTION[instruction.kind];
  if (o.kind !== want)
    return `a ${instruction.kind} instruction must answer kind "${want}", not "${o.kind}"`;
  const field = STAT_FIELD_FOR_INSTRUCTION[instruction.kind];
  if (o.kind === 'stat' && field !== undefined && !(field in o))
    return `${instruction.kind} must carry ${field}`;
  if (instruction.stream.hasGap)
    return `the output stream has a gap after streamSeq ${instruction.stream.watermark}`;
  if (o.kind === 'exec') {
    if (instruction.stream.exitCount !== 1)
      return `an exec stream must end with exactly one exit chunk (got ${instruction.stream.exitCount})`;
    if (instruction.stream.exitCode !== o.exitCode) {
      return `exit chunk exitCode ${String(instruction.stream.exitCode)} differs from the result's ${o.exitCode}`;
    }
  }
  return null;
};

export const makeFrameAdmission = (book: InstructionBook, config: LaneConfig, audit: Audit) => {
  const dropped = (conn: LaneConn, reason: string, t: string, instructionId: string) => {
    audit('frame_dropped', conn.deviceId, { reason, t, instructionId });
    return undefined;
  };

  /** The instruction a frame answers, 'memo' when it is already settled, or undefined (dropped). */
  const admit = (
    conn: LaneConn,
    t: 'result' | 'chunk',
    instructionId: string,
  ): Instruction | 'memo' | undefined => {
    const instruction = book.unsettled.get(instructionId);
    if (instruction === undefined) {
      const settled = book.memo.get(instructionId);
      if (settled === undefined) return dropped(conn, 'unknown_instruction', t, instructionId);
      return settled.deviceId === conn.deviceId
        ? 'memo'
        : dropped(conn, 'device_mismatch', t, instructionId);
    }
    if (instruction.deviceId !== conn.deviceId)
      return dropped(conn, 'device_mismatch', t, instructionId);
    if (instruction.state !== 'dispatch_committed')
      return dropped(conn, 'instruction_not_committed', t, instructionId);
    return instruction;
  };

  const onResult = (conn: LaneConn, f: ResultFrame) => {
    const instruction = admit(conn, 'result', f.instructionId);
    if (instruction === undefined) return;
    // R5/R6 and §2.4: settled (for any reason) → the bare ack, changing nothing.
    conn.send({ t: 'resultAck', gen: conn.gen, instructionId: f.instructionId });
    if (instruction === 'memo') return;
    const problem = outcomeProblem(instruction, f.outcome);
    if (problem !== null) {
      audit('protocol_violation', conn.deviceId, { instructionId: instruction.id, problem });
      book.settleUnknown(instruction, `protocol violation: ${problem}`);
      return;
    }
    book.settle(instruction, f.outcome);
  };

  /** R8: while the stream has a hole, the next streamSeq must arrive within chunkGapTimeoutMs. */
  const armGap = (instruction: Instruction) => {
    if (instruction.gapTimer) config.clock.clearTimeout(instruction.gapTimer);
    instruction.gapTimer = undefined;
    if (!instruction.stream.hasGap) return;
    const waiting = instruction.stream.watermark + 1;
    instruction.gapTimer = config.clock.setTimeout(
      () =>
        book.settleUnknown(
          instruction,
          `streamSeq ${waiting} did not arrive within ${config.chunkGapTimeoutMs} ms (R8)`,
        ),
      config.chunkGapTimeoutMs,
    );
  };

  /** `data`: the chunk's bytes, decoded once by the frame parser (absent for an exit chunk). */
  const onChunk = (conn: LaneConn, f: ChunkFrame, data: Buffer | undefined) => {
    const instruction = admit(conn, 'chunk', f.instructionId);
    if (instruction === undefined) return;
    if (instruction === 'memo') {
      audit('late_chunk_ignored', conn.deviceId, {
        instructionId: f.instructionId,
        streamSeq: f.streamSeq,
      });
      return;
    }
    const allowed = EXEC_INSTRUCTION_KINDS.has(instruction.kind)
      ? f.kind !== 'data'
      : READ_INSTRUCTION_KINDS.has(instruction.kind) && f.kind === 'data';
    if (!allowed) {
      audit('protocol_violation', conn.deviceId, {
        instructionId: instruction.id,
        problem: `${f.kind} chunk`,
      });
      book.settleUnknown(
        instruction,
        `protocol violation: a ${instruction.kind} instruction cannot stream ${f.kind} chunks`,
      );
      return;
    }
    const item: StreamItem =
      f.kind === 'exit'
        ? { kind: 'exit', exitCode: f.exitCode as number }
        : { kind: f.kind, data: data ?? (decodeCanonicalBase64(f.dataB64) as Buffer) };
    const accepted = instruction.stream.accept(f.streamSeq, f.kind, item);
    if (accepted.status === 'overflow' || accepted.status === 'violation') {
      audit('protocol_violation', conn.deviceId, {
        instructionId: instruction.id,
        problem: accepted.message,
      });
      book.settleUnknown(
        instruction,
        accepted.status === 'overflow'
          ? `${accepted.message} (R8)`
          : `protocol violation: ${accepted.message}`,
      );
      return;
    }
    if (accepted.status === 'delivered')
      for (const delivered of accepted.items) instruction.output.push(delivered);
    if (accepted.status !== 'duplicate') armGap(instruction);
    conn.ackChunks(instruction.id, instruction.stream.watermark);
  };

  return { onResult, onChunk };
};
