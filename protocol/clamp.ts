// Senders clamp free text before sealing (spec "Idempotency & limits"): by characters first, then
// by UTF-8 bytes, and never inside a code point, so CJK, emoji and surrogate pairs survive whole.
import { utf8ByteLength } from './bytes.ts';

export type ClampOptions = {
  /** Maximum code points, suffix included. */
  chars?: number;
  /** Maximum UTF-8 bytes, suffix included. */
  bytes?: number;
  /** Appended when the text is cut, within the limits (normally TRUNCATION_SUFFIX). */
  suffix?: string;
};
export type Clamped = { text: string; truncated: boolean };

const codePointBytes = (cp: number): number =>
  cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;

function fits(text: string, chars: number, bytes: number): boolean {
  // Cheap exits first: a UTF-16 length within both limits is within them in code points too…
  if (text.length <= chars && text.length * 3 <= bytes) return true;
  if (utf8ByteLength(text) > bytes) return false;
  if (text.length <= chars) return true;
  let n = 0;
  for (const _ of text) if (++n > chars) return false;
  return true;
}

/** The longest prefix within both budgets, cut at a code point boundary. */
function prefix(text: string, chars: number, bytes: number): string {
  let n = 0;
  let b = 0;
  let end = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const size = codePointBytes(cp);
    if (n + 1 > chars || b + size > bytes) break;
    n += 1;
    b += size;
    end += ch.length;
  }
  return text.slice(0, end);
}

// A lone surrogate cannot be encoded; TextEncoder would send U+FFFD, so the text says so too.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Absent = no limit; a negative, fractional or NaN limit is read conservatively (floor, ≥ 0). */
const limit = (n: number | undefined): number =>
  n === undefined ? Infinity : n >= 0 ? Math.floor(n) : 0;

/**
 * The result never exceeds `chars` code points nor `bytes` UTF-8 bytes, and clamping it again
 * changes nothing. A suffix that does not fit the limits on its own is left off.
 */
export function clampText(input: string, options: ClampOptions): Clamped {
  const text = input.replace(LONE_SURROGATE, '\uFFFD');
  const chars = limit(options.chars);
  const bytes = limit(options.bytes);
  if (fits(text, chars, bytes)) return { text, truncated: false };
  let suffix = options.suffix ?? '';
  const suffixChars = [...suffix].length;
  const suffixBytes = utf8ByteLength(suffix);
  if (suffixChars > chars || suffixBytes > bytes) suffix = '';
  const head = prefix(text, chars - (suffix ? suffixChars : 0), bytes - (suffix ? suffixBytes : 0));
  return { text: head + suffix, truncated: true };
}

/** The spec's "shared clampBytes": 10 KiB per free-text field unless told otherwise. */
export const clampBytes = (text: string, bytes: number, suffix?: string): Clamped =>
  clampText(text, suffix === undefined ? { bytes } : { bytes, suffix });
