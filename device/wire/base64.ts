import { Buffer } from 'node:buffer';

// §4 "Encoding": canonical base64 is the standard alphabet, correct `=` padding, no line breaks,
// and the exact form that re-encodes to itself (so the unused low bits of the last symbol are 0).
// That is checked without re-encoding (a second 87 KB string per 64 KiB chunk, a fifth of the
// lane's stream cost with its garbage), from how Node's decoder treats the other forms:
// - it skips whitespace and every foreign character, and stops at the first `=`: each of those
//   leaves fewer decoded bytes than the length and padding promise, so the length check fails;
// - it also accepts the URL-safe `-` and `_` as symbols: those are looked for explicitly;
// - the padding drops the low bits of the last symbol: those must be zero.
// base64.test.ts holds this to the re-encoding definition on generated strings.
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SYMBOL_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i += 1) SYMBOL_VALUE[ALPHABET.charCodeAt(i)] = i;
const PAD = 0x3d; // '='
const symbolValue = (s: string, at: number): number => SYMBOL_VALUE[s.charCodeAt(at)] ?? -1;

/**
 * The decoded bytes when `s` is canonical, else null. They are written into `into` when given
 * (which must hold the decoded length), else into a new Buffer.
 */
const decodeIfCanonical = (s: string, into?: Buffer): Buffer | null => {
  const n = s.length;
  if (n % 4 !== 0) return null;
  if (n === 0) return Buffer.alloc(0);
  const pad = s.charCodeAt(n - 1) !== PAD ? 0 : s.charCodeAt(n - 2) !== PAD ? 1 : 2;
  if (s.indexOf('-') !== -1 || s.indexOf('_') !== -1) return null;
  const expected = (n / 4) * 3 - pad;
  let bytes: Buffer;
  if (into === undefined) bytes = Buffer.from(s, 'base64');
  else {
    if (into.length < expected) throw new RangeError('decode target too small');
    // The same decoder as Buffer.from (it can only come out shorter than `expected`, never longer).
    bytes = into.subarray(0, into.write(s, 0, expected, 'base64'));
  }
  if (bytes.length !== expected) return null;
  if (pad === 2 && (symbolValue(s, n - 3) & 0x0f) !== 0) return null;
  if (pad === 1 && (symbolValue(s, n - 2) & 0x03) !== 0) return null;
  return bytes;
};

export const isCanonicalBase64 = (s: unknown): s is string =>
  typeof s === 'string' && decodeIfCanonical(s) !== null;

/** Decodes canonical base64 only; anything else (sloppy padding, URL-safe, whitespace) is null. */
export const decodeCanonicalBase64 = (s: unknown): Buffer | null =>
  typeof s === 'string' ? decodeIfCanonical(s) : null;

/**
 * `decodeCanonicalBase64` into memory the caller owns (at least the decoded length): no fresh
 * allocation per chunk, which cost the lane more than the decoding itself. On null the target's
 * first bytes may have been overwritten.
 */
export const decodeCanonicalBase64Into = (s: string, into: Buffer): Buffer | null =>
  decodeIfCanonical(s, into);

/** Node's encoder always emits the canonical form. */
export const encodeBase64 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/** Decoded length of a canonical base64 string without decoding it. */
export const base64DecodedLength = (s: string): number =>
  s.length === 0 ? 0 : (s.length / 4) * 3 - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
