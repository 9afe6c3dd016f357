// UTF-8 and base64 without Buffer, atob or btoa, so the same code runs in the page, the service
// worker and Node. Decoders are strict: one byte string has exactly one accepted encoding, and
// anything else is refused rather than repaired.
import { err, ok, type Result } from './result.ts';

export const utf8Encode = (s: string): Uint8Array => new TextEncoder().encode(s);

export function utf8Decode(bytes: Uint8Array): Result<string, 'invalid-utf8'> {
  try {
    return ok(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return err('invalid-utf8', 'The bytes are not valid UTF-8.');
  }
}

/** Bytes of `utf8Encode(s)` without allocating; a lone surrogate counts as U+FFFD (3 bytes). */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

const STD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function encode(bytes: Uint8Array, alphabet: string, pad: boolean): string {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out +=
      alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + alphabet[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + (pad ? '==' : '');
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out +=
      alphabet[n >> 18]! + alphabet[(n >> 12) & 63]! + alphabet[(n >> 6) & 63]! + (pad ? '=' : '');
  }
  return out;
}

function lookup(alphabet: string): Int16Array {
  const table = new Int16Array(128).fill(-1);
  for (let i = 0; i < 64; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
}
// Built on first use so importing this module costs nothing.
let stdTable: Int16Array | undefined;
let urlTable: Int16Array | undefined;

/** Decodes unpadded base64 digits; refuses a dangling digit or non-zero unused bits. */
function decodeDigits(s: string, table: Int16Array): Uint8Array | null {
  if (s.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((s.length * 3) / 4));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const v = c < 128 ? table[c]! : -1;
    if (v < 0) return null;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  if (bits > 0 && (acc & ((1 << bits) - 1)) !== 0) return null;
  return out;
}

export const toBase64 = (bytes: Uint8Array): string => encode(bytes, STD, true);
export const toBase64Url = (bytes: Uint8Array): string => encode(bytes, URL_SAFE, false);

/** Standard, padded base64 only (what the spec puts in `payload`); null for anything else. */
export function fromBase64(s: string): Uint8Array | null {
  if (typeof s !== 'string' || s.length % 4 !== 0) return null;
  const body = s.endsWith('==') ? s.slice(0, -2) : s.endsWith('=') ? s.slice(0, -1) : s;
  return decodeDigits(body, (stdTable ??= lookup(STD)));
}

/** base64url without padding (RFC 4648 §5), as in pairing codes and secrets; null otherwise. */
export function fromBase64Url(s: string): Uint8Array | null {
  if (typeof s !== 'string') return null;
  return decodeDigits(s, (urlTable ??= lookup(URL_SAFE)));
}
