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
const outcomeProblem = (i: Instruction, o: DeviceOutcome): string | null => {
  if (!o.ok || o.kind === 'cancelled') return null;
  const want = OUTCOME_KIND_FOR_INSTRUCTION[i.kind];
  if (o.kind !== want) return `a ${i.kind} instruction must answer kind "${want}", not "${o.kind}"`;
  const field = STAT_FIELD_FOR_INSTRUCTION[i.kind];
  if (o.kind === 'stat' && field !== undefined && !(field in o))
    return `${i.kind} must carry ${field}`;
  if (i.stream.hasGap) return `the output stream has a gap after streamSeq ${i.stream.watermark}`;
  if (o.kind === 'exec') {
    if (i.stream.exitCount !== 1)
      return `an exec stream must end with exactly one exit chunk (got ${i.stream.exitCount})`;
    if (i.stream.exitCode !== o.exitCode) {
      return `exit chunk exitCode ${String(i.stream.exitCode)} differs from the result's ${o.exitCode}`;
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
    const i = book.unsettled.get(instructionId);
    if (i === undefined) {
      const settled = book.memo.get(instructionId);
      if (settled === undefined) return dropped(conn, 'unknown_instruction', t, instructionId);
      return settled.deviceId === conn.deviceId
        ? 'memo'
        : dropped(conn, 'device_mismatch', t, instructionId);
    }
    if (i.deviceId !== conn.deviceId) return dropped(conn, 'device_mismatch', t, instructionId);
    if (i.state !== 'dispatch_committed')
      return dropped(conn, 'instruction_not_committed', t, instructionId);
    return i;
  };

  const onResult = (conn: LaneConn, f: ResultFrame) => {
    const i = admit(conn, 'result', f.instructionId);
    if (i === undefined) return;
    // R5/R6 and §2.4: settled (for any reason) → the bare ack, changing nothing.
    conn.send({ t: 'resultAck', gen: conn.gen, instructionId: f.instructionId });
    if (i === 'memo') return;
    const problem = outcomeProblem(i, f.outcome);
    if (problem !== null) {
      audit('protocol_violation', conn.deviceId, { instructionId: i.id, problem });
      book.settleUnknown(i, `protocol violation: ${problem}`);
      return;
    }
    book.settle(i, f.outcome);
  };

  /** R8: while the stream has a hole, the next streamSeq must arrive within chunkGapTimeoutMs. */
  const armGap = (i: Instruction) => {
    i.gapTimer?.cancel();
    i.gapTimer = undefined;
    if (!i.stream.hasGap) return;
    const waiting = i.stream.watermark + 1;
    i.gapTimer = config.clock.after(config.chunkGapTimeoutMs, () =>
      book.settleUnknown(
        i,
        `streamSeq ${waiting} did not arrive within ${config.chunkGapTimeoutMs} ms (R8)`,
      ),
    );
  };

  /** `data`: the chunk's bytes, decoded once by the frame parser (absent for an exit chunk). */
  const onChunk = (conn: LaneConn, f: ChunkFrame, data: Buffer | undefined) => {
    const i = admit(conn, 'chunk', f.instructionId);
    if (i === undefined) return;
    if (i === 'memo') {
      audit('late_chunk_ignored', conn.deviceId, {
        instructionId: f.instructionId,
        streamSeq: f.streamSeq,
      });
      return;
    }
    const allowed = EXEC_INSTRUCTION_KINDS.has(i.kind)
      ? f.kind !== 'data'
      : READ_INSTRUCTION_KINDS.has(i.kind) && f.kind === 'data';
    if (!allowed) {
      audit('protocol_violation', conn.deviceId, {
        instructionId: i.id,
        problem: `${f.kind} chunk`,
      });
      book.settleUnknown(
        i,
        `protocol violation: a ${i.kind} instruction cannot stream ${f.kind} chunks`,
      );
      return;
    }
    const item: StreamItem =
      f.kind === 'exit'
        ? { kind: 'exit', exitCode: f.exitCode as number }
        : { kind: f.kind, data: data ?? (decodeCanonicalBase64(f.dataB64) as Buffer) };
    const accepted = i.stream.accept(f.streamSeq, f.kind, item);
    if (accepted.status === 'overflow' || accepted.status === 'violation') {
      audit('protocol_violation', conn.deviceId, {
        instructionId: i.id,
        problem: accepted.message,
      });
      book.settleUnknown(
        i,
        accepted.status === 'overflow'
          ? `${accepted.message} (R8)`
          : `protocol violation: ${accepted.message}`,
      );
      return;
    }
    if (accepted.status === 'delivered') for (const item of accepted.items) i.output.push(item);
    if (accepted.status !== 'duplicate') armGap(i);
    conn.ackChunks(i.id, i.stream.watermark);
  };

  return { onResult, onChunk };
};
