import { Buffer } from 'node:buffer';

// §4 "Encoding": canonical base64 is the standard alphabet, correct `=` padding, no line breaks,
// and the exact form that re-encodes to itself (so the unused low bits of the last symbol are 0).
const CANONICAL_SHAPE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const isCanonicalBase64 = (s: unknown): s is string =>
  typeof s === 'string' &&
  CANONICAL_SHAPE.test(s) &&
  Buffer.from(s, 'base64').toString('base64') === s;

/** Decodes canonical base64 only; anything else (sloppy padding, URL-safe, whitespace) is null. */
export const decodeCanonicalBase64 = (s: unknown): Buffer | null =>
  isCanonicalBase64(s) ? Buffer.from(s, 'base64') : null;

/** Node's encoder always emits the canonical form. */
export const encodeBase64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** Decoded length of a canonical base64 string without decoding it. */
export const base64DecodedLength = (s: string): number =>
  s.length === 0 ? 0 : (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
