import { Buffer } from 'node:buffer';
import { decodeCanonicalBase64, decodeCanonicalBase64Into } from './base64.ts';
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

/** Position after literal `l` at `p`, or -1. */
const skipLiteral = (bytes: Buffer, p: number, l: Buffer): number => {
  if (p < 0 || bytes.length - p < l.length) return -1;
  for (let i = 0; i < l.length; i += 1) if (bytes[p + i] !== l[i]) return -1;
  return p + l.length;
};

/**
 * Position of the `"` that ends a run of printable ASCII other than `"` and `\` starting at `p`
 * (so the JSON string's value is those bytes as they are), or -1.
 */
const plainStringEnd = (bytes: Buffer, p: number, maxLen: number): number => {
  if (p < 0) return -1;
  for (let q = p; q < bytes.length && q - p <= maxLen; q += 1) {
    const b = bytes[q] as number;
    if (b === QUOTE) return q;
    if (b < 0x20 || b > 0x7e || b === BACKSLASH) return -1;
  }
  return -1;
};

/**
 * The fast path of stage 1 (§2.4) for the one frame that carries bulk bytes: a data chunk laid out
 * exactly as `encodeDataChunkFrame` writes it, scanned on the frame's bytes instead of decoding
 * them to a string and `JSON.parse`-ing 87 KB per 64 KiB chunk. It accepts only frames the generic
 * parser also accepts, with the same values (same field checks: canonical gen, non-empty id, safe
 * integer streamSeq ≥ 0, data kind, no exitCode, canonical base64), and it decodes the base64 once.
 * Anything else — another key order, whitespace, escapes, non-ASCII, an exit chunk, a bad field —
 * returns null, and the caller hands the frame to the generic parser, which gives the verdict.
 * With `decodeInPlace` the decoded bytes are written over the start of `bytes` (no allocation);
 * `bytes` is left as it was when the result is null.
 *
 * Every byte of an accepted frame is printable ASCII: the literals, the plain gen and id strings,
 * the digits, and the base64 (the canonical check refuses any byte outside its alphabet), so an
 * accepted frame is valid UTF-8 without a separate check.
 */
export const scanDataChunkFrame = (
  bytes: Buffer,
  opts: { decodeInPlace?: boolean } = {},
): ScannedDataChunk | null => {
  const end = bytes.length;
  const genAt = skipLiteral(bytes, 0, HEAD);
  const genEnd = plainStringEnd(bytes, genAt, MAX_GEN_DIGITS);
  if (genEnd < 0) return null;
  const gen = bytes.toString('latin1', genAt, genEnd);
  if (!isCanonicalGen(gen)) return null;
  const idAt = skipLiteral(bytes, genEnd, AFTER_GEN);
  const idEnd = plainStringEnd(bytes, idAt, end);
  if (idEnd <= idAt) return null; // absent, or empty (the generic parser names that)
  const instructionId = bytes.toString('latin1', idAt, idEnd);
  const seqAt = skipLiteral(bytes, idEnd, AFTER_ID);
  if (seqAt < 0) return null;
  let p = seqAt;
  while (p < end && (bytes[p] as number) >= DIGIT_0 && (bytes[p] as number) <= DIGIT_9) p += 1;
  const digits = p - seqAt;
  if (digits === 0 || digits > MAX_SEQ_DIGITS) return null;
  if (digits > 1 && bytes[seqAt] === DIGIT_0) return null; // JSON has no leading zeros
  const streamSeq = Number(bytes.toString('latin1', seqAt, p));
  if (!Number.isSafeInteger(streamSeq)) return null;
  const kindAt = skipLiteral(bytes, p, AFTER_SEQ);
  let kind: DataChunkKind | undefined;
  let dataAt = -1;
  for (const k of KINDS) {
    dataAt = skipLiteral(bytes, skipLiteral(bytes, kindAt, k.bytes), AFTER_KIND);
    if (dataAt >= 0) {
      kind = k.k;
      break;
    }
  }
  if (kind === undefined) return null;
  // The value runs to the closing `"}` that ends the frame; canonical base64 has no `"` in it, so
  // anything that would end the string earlier (and add fields) fails the canonical check below.
  if (end - dataAt < 2 || bytes[end - 2] !== QUOTE || bytes[end - 1] !== BRACE_CLOSE) return null;
  const dataB64 = bytes.toString('latin1', dataAt, end - 2);
  // In place: the decoded bytes (3/4 of the base64) overwrite the frame's own first bytes, which
  // were read into strings above; `bytes` must then be the caller's to spend. When the check fails
  // the frame is judged by the generic parser, so the text must be put back first.
  let data: Buffer | null;
  if (opts.decodeInPlace === true) {
    // Kept as latin1 text: a short string is ~5× cheaper here than a Buffer copy.
    const head = bytes.toString('latin1', 0, dataAt);
    data = decodeCanonicalBase64Into(dataB64, bytes);
    if (data === null) {
      bytes.write(head, 0, 'latin1');
      bytes.write(dataB64, dataAt, 'latin1');
      return null;
    }
  } else data = decodeCanonicalBase64(dataB64);
  if (data === null) return null;
  return { frame: { t: 'chunk', gen, instructionId, streamSeq, kind, dataB64 }, data };
};
