import type { Instruction, LaneConn } from './instruction.ts';

/**
 * §5.0 / R1: puts a committed instruction on the wire — the instruction frame, then for a write
 * its payload as begin, chunks of payloadPartBytes, commit — and drops the lane's copy of the
 * bytes, so nothing can ever send them again.
 */
export const writeInstruction = (
  conn: LaneConn,
  instruction: Instruction,
  payloadPartBytes: number,
) => {
  conn.send({
    t: 'instruction',
    gen: conn.gen,
    instructionId: instruction.id,
    rootSessionId: instruction.rootSessionId,
    issuedSeq: conn.issuedSeq++,
    kind: instruction.kind,
    args: instruction.args,
    ...(instruction.cwd === undefined ? {} : { cwd: instruction.cwd }),
    ...(instruction.shellEnv === undefined ? {} : { shellEnv: instruction.shellEnv }),
    timeoutMs: instruction.timeoutMs,
  });
  if (instruction.content === undefined || instruction.sha256 === undefined) return;
  const base = { gen: conn.gen, instructionId: instruction.id };
  const totalLen = instruction.content.length;
  conn.send({ t: 'payload', ...base, part: 'begin', totalLen, sha256: instruction.sha256 });
  for (let offset = 0; offset < totalLen; offset += payloadPartBytes) {
    const part = instruction.content.subarray(offset, offset + payloadPartBytes);
    conn.send({ t: 'payload', ...base, part: 'chunk', offset, dataB64: part.toString('base64') });
  }
  conn.send({ t: 'payload', ...base, part: 'commit', totalLen, sha256: instruction.sha256 });
  instruction.content = undefined;
};
