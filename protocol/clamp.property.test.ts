import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { clampText } from './clamp.ts';
import { utf8Encode } from './bytes.ts';
import { TRUNCATION_SUFFIX } from './limits.ts';

// Units that break naive clamps: multi-byte Latin, CJK (3 bytes), astral emoji (surrogate pairs,
// 4 bytes), an emoji with a skin-tone modifier, and lone surrogates.
const tricky = fc.constantFrom('a', 'é', '日', '語', '😀', '👍🏽', '𝄞', '\uD800', '\uDFFF', ' ');
const text = fc.string({
  unit: fc.oneof(
    tricky,
    fc.integer({ min: 0, max: 0x10ffff }).map((c) => String.fromCodePoint(c)),
  ),
  maxLength: 120,
});
const limits = fc.record(
  {
    chars: fc.integer({ min: 0, max: 100 }),
    bytes: fc.integer({ min: 0, max: 300 }),
    suffix: fc.constantFrom(TRUNCATION_SUFFIX, '…', '日本'),
  },
  { requiredKeys: [] },
);
const fatal = new TextDecoder('utf-8', { fatal: true });
const codePoints = (s: string) => [...s].length;
const wellFormed = (s: string) =>
  s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');

describe('clampText properties (spec: clamp by chars, then UTF-8 bytes, suffix within the limit)', () => {
  it('never exceeds its byte limit nor its character limit', () => {
    fc.assert(
      fc.property(text, limits, (t, o) => {
        const r = clampText(t, o).text;
        if (o.bytes !== undefined) expect(utf8Encode(r).length).toBeLessThanOrEqual(o.bytes);
        if (o.chars !== undefined) expect(codePoints(r)).toBeLessThanOrEqual(o.chars);
      }),
      { numRuns: 2000 },
    );
  });

  it('always yields valid UTF-8: never splits a surrogate pair (fatal TextDecoder round trip)', () => {
    fc.assert(
      fc.property(text, limits, (t, o) => {
        const r = clampText(t, o).text;
        expect(fatal.decode(utf8Encode(r))).toBe(r);
      }),
      { numRuns: 2000 },
    );
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(text, limits, (t, o) => {
        const once = clampText(t, o);
        expect(clampText(once.text, o)).toEqual({ text: once.text, truncated: false });
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps the longest whole-code-point prefix, then appends the suffix within the limit', () => {
    fc.assert(
      fc.property(text, limits, (t, o) => {
        const r = clampText(t, o);
        const input = wellFormed(t);
        if (!r.truncated) {
          expect(r.text).toBe(input);
          return;
        }
        const suffix = o.suffix ?? '';
        const chars = o.chars ?? Infinity;
        const bytes = o.bytes ?? Infinity;
        const suffixFits = codePoints(suffix) <= chars && utf8Encode(suffix).length <= bytes;
        const used = suffixFits ? suffix : '';
        expect(r.text.endsWith(used)).toBe(true);
        const head = r.text.slice(0, r.text.length - used.length);
        expect(input.startsWith(head)).toBe(true);
        // Maximal: one more code point of the input would break a limit.
        const next = [...input.slice(head.length)][0]!;
        const grown = head + next + used;
        const over = codePoints(grown) > chars || utf8Encode(grown).length > bytes;
        expect(over).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('handles CJK and emoji at exact boundaries', () => {
    // 10 bytes: three CJK characters are 9 bytes, a fourth would be 12.
    expect(clampText('日本語です', { bytes: 10 })).toEqual({ text: '日本語', truncated: true });
    // An emoji is 4 bytes / 2 UTF-16 units / 1 character.
    expect(clampText('😀😀😀', { bytes: 7 })).toEqual({ text: '😀', truncated: true });
    expect(clampText('😀😀😀', { chars: 3 })).toEqual({ text: '😀😀😀', truncated: false });
    expect(clampText('a😀', { bytes: 4 })).toEqual({ text: 'a', truncated: true });
  });

  it('approval detail rule: "≤ 8KB, truncated with …[truncated] suffix"', () => {
    const r = clampText('界'.repeat(5000), { bytes: 8192, suffix: TRUNCATION_SUFFIX });
    expect(r.truncated).toBe(true);
    expect(r.text.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(utf8Encode(r.text).length).toBeLessThanOrEqual(8192);
    expect(utf8Encode(r.text).length).toBeGreaterThan(8192 - 3);
  });

  it('prompt rule: "≤ 8192 chars AND ≤ 10KB UTF-8 bytes" — chars first, then bytes', () => {
    const ascii = clampText('a'.repeat(9000), { chars: 8192, bytes: 10240 });
    expect(ascii.text).toHaveLength(8192);
    const cjk = clampText('日'.repeat(9000), { chars: 8192, bytes: 10240 });
    expect(codePoints(cjk.text)).toBe(3413);
    expect(utf8Encode(cjk.text).length).toBe(10239);
  });
});
