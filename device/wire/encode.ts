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
