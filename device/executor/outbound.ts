// The frames the executor writes about an instruction: its chunks (the data path writes straight
// into the socket's frame buffer) and its result, cut down to a specific failure when it cannot
// fit one frame.
import { dataChunkFrameWriter, encodeExitChunkFrame } from '../wire/index.ts';
import type { Connection } from './connection.ts';
import type { OutChunk } from './exec/chunker.ts';
import { MAX_RESULT_OUTCOME_BYTES } from './limits.ts';
import { fail, type Outcome } from './outcome.ts';
import type { HeldResult } from './outbox.ts';

export const sendChunk = (c: Connection, instructionId: string, chunk: OutChunk) => {
  const gen = c.gen as string;
  if (chunk.kind === 'exit') {
    c.send(
      encodeExitChunkFrame({ gen, instructionId, streamSeq: chunk.seq, exitCode: chunk.exitCode }),
    );
    return;
  }
  const w = dataChunkFrameWriter({
    gen,
    instructionId,
    streamSeq: chunk.seq,
    kind: chunk.kind,
    dataB64: chunk.b64,
  });
  c.sendText(w.length, w.write);
};

export const resultText = (gen: string, instructionId: string, r: HeldResult) =>
  JSON.stringify({ t: 'result', gen, instructionId, deviceSeq: r.deviceSeq, outcome: r.outcome });

/**
 * §2.4 stage 0: a frame over 1 MiB costs the connection, and a result is re-sent on every
 * reconnect — so an answer too big for one frame (a huge listDir) would cut the connection again
 * and again. It is replaced by a specific failure instead.
 */
export const fitsInFrame = (o: Outcome): Outcome => {
  const bytes = Buffer.byteLength(JSON.stringify(o));
  return bytes <= MAX_RESULT_OUTCOME_BYTES
    ? o
    : fail(
        'invalid',
        `the answer is ${bytes} bytes, over what one frame can carry (${MAX_RESULT_OUTCOME_BYTES}); ask for less (e.g. a narrower listDir)`,
      );
};
