import type { Instruction, LaneConn } from './instruction.ts';

/**
 * §5.0 / R1: puts a committed instruction on the wire — the instruction frame, then for a write
 * its payload as begin, chunks of payloadPartBytes, commit — and drops the lane's copy of the
 * bytes, so nothing can ever send them again.
 */
export const writeInstruction = (conn: LaneConn, i: Instruction, payloadPartBytes: number) => {
  conn.send({
    t: 'instruction',
    gen: conn.gen,
    instructionId: i.id,
    rootSessionId: i.rootSessionId,
    issuedSeq: conn.issuedSeq++,
    kind: i.kind,
    args: i.args,
    ...(i.cwd === undefined ? {} : { cwd: i.cwd }),
    ...(i.shellEnv === undefined ? {} : { shellEnv: i.shellEnv }),
    timeoutMs: i.timeoutMs,
  });
  if (i.content === undefined || i.sha256 === undefined) return;
  const base = { gen: conn.gen, instructionId: i.id };
  const totalLen = i.content.length;
  conn.send({ t: 'payload', ...base, part: 'begin', totalLen, sha256: i.sha256 });
  for (let offset = 0; offset < totalLen; offset += payloadPartBytes) {
    const part = i.content.subarray(offset, offset + payloadPartBytes);
    conn.send({ t: 'payload', ...base, part: 'chunk', offset, dataB64: part.toString('base64') });
  }
  conn.send({ t: 'payload', ...base, part: 'commit', totalLen, sha256: i.sha256 });
  i.content = undefined;
};
