import { Buffer } from 'node:buffer';
import type { ChunkFrame, DeviceFrame, DeviceServerFrame } from './frames.ts';

export const encodeFrame = (frame: DeviceFrame | DeviceServerFrame): string =>
  JSON.stringify(frame);

/**
 * A data chunk frame by concatenation: JSON.stringify over a large base64 string is far slower
 * than joining the text, and every interpolated value here is JSON-safe by construction (the id
 * and gen are escaped by JSON.stringify, base64 has no characters that need escaping).
 */
export const encodeDataChunkFrame = (f: {
  gen: string;
  instructionId: string;
  streamSeq: number;
  kind: 'stdout' | 'stderr' | 'data';
  dataB64: string;
}): string =>
  `{"t":"chunk","gen":${JSON.stringify(f.gen)},"instructionId":${JSON.stringify(f.instructionId)},"streamSeq":${f.streamSeq},"kind":"${f.kind}","dataB64":"${f.dataB64}"}`;

type DataChunkFields = {
  gen: string;
  instructionId: string;
  streamSeq: number;
  kind: 'stdout' | 'stderr' | 'data';
  dataB64: string;
};

const dataChunkHead = (f: DataChunkFields) =>
  `{"t":"chunk","gen":${JSON.stringify(f.gen)},"instructionId":${JSON.stringify(f.instructionId)},"streamSeq":${f.streamSeq},"kind":"${f.kind}","dataB64":"`;

/**
 * The same frame as `encodeDataChunkFrame` as bytes, in two steps so the caller can place them in
 * memory of its own (the executor's frame writer): the byte length, then the writing. Handing `ws`
 * a string makes it measure the string's UTF-8 length and then transcode all 87 KB of it; the
 * base64 part is ASCII, so it is copied in as latin1 (byte for byte) instead.
 */
export const dataChunkFrameWriter = (f: DataChunkFields) => {
  const head = dataChunkHead(f);
  const headBytes = Buffer.byteLength(head, 'utf8');
  const length = headBytes + f.dataB64.length + 2;
  return {
    length,
    /** Writes exactly `length` bytes at `out[at…]`. */
    write(out: Buffer, at: number) {
      out.write(head, at, 'utf8');
      out.write(f.dataB64, at + headBytes, 'latin1');
      out[at + length - 2] = 0x22; // "
      out[at + length - 1] = 0x7d; // }
    },
  };
};

/** The same frame as `encodeDataChunkFrame`, as the UTF-8 bytes of a text frame. */
export const encodeDataChunkFrameBytes = (f: DataChunkFields): Buffer => {
  const w = dataChunkFrameWriter(f);
  const out = Buffer.allocUnsafe(w.length);
  w.write(out, 0);
  return out;
};

export const encodeExitChunkFrame = (
  f: Omit<ChunkFrame, 't' | 'kind' | 'dataB64'> & { exitCode: number },
): string =>
  JSON.stringify({
    t: 'chunk',
    gen: f.gen,
    instructionId: f.instructionId,
    streamSeq: f.streamSeq,
    kind: 'exit',
    exitCode: f.exitCode,
  });
