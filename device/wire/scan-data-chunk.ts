import { Buffer } from 'node:buffer';
import { decodeCanonicalBase64 } from './base64.ts';
import { isCanonicalGen } from './check.ts';
import type { ChunkFrame } from './frames.ts';

export type DataChunkKind = 'stdout' | 'stderr' | 'data';
export type ScannedDataChunk = {
  readonly frame: ChunkFrame & { kind: DataChunkKind; dataB64: string };
  /** The decoded bytes of `dataB64`. */
  readonly data: Buffer;
};

const lit = (s: string) => Buffer.from(s, 'latin1');
const HEAD = lit('{"t":"chunk","gen":"');
const AFTER_GEN = lit('","instructionId":"');
const AFTER_ID = lit('","streamSeq":');
const AFTER_SEQ = lit(',"kind":"');
const AFTER_KIND = lit('","dataB64":"');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const BRACE_CLOSE = 0x7d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const KINDS = (['stdout', 'stderr', 'data'] as const).map((k) => ({ k, bytes: lit(k) }));
/** Longer than any safe integer's decimal form; the generic parser judges such frames. */
const MAX_SEQ_DIGITS = 16;
/** A canonical gen is a u64: at most 20 digits. */
const MAX_GEN_DIGITS = 20;

/**
 * The fast path of stage 1 (§2.4) for the one frame that carries bulk bytes: a data chunk laid out
 * exactly as `encodeDataChunkFrame` writes it, scanned on the frame's bytes instead of decoding
 * them to a string and `JSON.parse`-ing 87 KB per 64 KiB chunk. It accepts only frames the generic
 * parser also accepts, with the same values (same field checks: canonical gen, non-empty id, safe
 * integer streamSeq ≥ 0, data kind, no exitCode, canonical base64), and it decodes the base64 once.
 * Anything else — another key order, whitespace, escapes, non-ASCII, an exit chunk, a bad field —
 * returns null, and the caller hands the frame to the generic parser, which gives the verdict.
 */
export const scanDataChunkFrame = (bytes: Buffer): ScannedDataChunk | null => {
  const end = bytes.length;
  let p = 0;
  const expect = (l: Buffer): boolean => {
    if (end - p < l.length) return false;
    for (let i = 0; i < l.length; i += 1) if (bytes[p + i] !== l[i]) return false;
    p += l.length;
    return true;
  };
  /** A run of printable ASCII other than `"` and `\` (so its JSON value is the bytes as they are). */
  const plainString = (maxLen: number): string | null => {
    const from = p;
    while (p < end && p - from <= maxLen) {
      const b = bytes[p] as number;
      if (b === QUOTE) return bytes.toString('latin1', from, p);
      if (b < 0x20 || b > 0x7e || b === BACKSLASH) return null;
      p += 1;
    }
    return null;
  };

  if (!expect(HEAD)) return null;
  const gen = plainString(MAX_GEN_DIGITS);
  if (gen === null || !isCanonicalGen(gen) || !expect(AFTER_GEN)) return null;
  const instructionId = plainString(end);
  if (instructionId === null || instructionId.length === 0 || !expect(AFTER_ID)) return null;
  const seqFrom = p;
  while (p < end && (bytes[p] as number) >= DIGIT_0 && (bytes[p] as number) <= DIGIT_9) p += 1;
  const digits = p - seqFrom;
  if (digits === 0 || digits > MAX_SEQ_DIGITS) return null;
  if (digits > 1 && bytes[seqFrom] === DIGIT_0) return null; // JSON has no leading zeros
  const streamSeq = Number(bytes.toString('latin1', seqFrom, p));
  if (!Number.isSafeInteger(streamSeq) || !expect(AFTER_SEQ)) return null;
  let kind: DataChunkKind | undefined;
  for (const k of KINDS) {
    if (expect(k.bytes)) {
      kind = k.k;
      break;
    }
  }
  if (kind === undefined || !expect(AFTER_KIND)) return null;
  // The value runs to the closing `"}` that ends the frame; canonical base64 has no `"` in it, so
  // anything that would end the string earlier (and add fields) fails the canonical check below.
  if (end - p < 2 || bytes[end - 2] !== QUOTE || bytes[end - 1] !== BRACE_CLOSE) return null;
  const dataB64 = bytes.toString('latin1', p, end - 2);
  const data = decodeCanonicalBase64(dataB64);
  if (data === null) return null;
  return { frame: { t: 'chunk', gen, instructionId, streamSeq, kind, dataB64 }, data };
};
