import { describe, expect, it } from 'vitest';
import { clampBytes, clampText } from './clamp.ts';
import { utf8ByteLength } from './bytes.ts';
import { TRUNCATION_SUFFIX } from './limits.ts';

describe('clampText (spec: "by chars first, then by UTF-8 bytes")', () => {
  it('leaves text within the limits untouched', () => {
    expect(clampText('hello', { chars: 5, bytes: 5 })).toEqual({ text: 'hello', truncated: false });
  });

  it('cuts by code points, not UTF-16 units', () => {
    expect(clampText('😀😀😀', { chars: 2 })).toEqual({ text: '😀😀', truncated: true });
  });

  it('cuts by bytes without splitting a CJK character', () => {
    const r = clampText('日本語', { bytes: 7 });
    expect(r).toEqual({ text: '日本', truncated: true });
  });

  it('appends the suffix within the limit', () => {
    const r = clampText('x'.repeat(100), { bytes: 20, suffix: TRUNCATION_SUFFIX });
    expect(r.text.endsWith(TRUNCATION_SUFFIX)).toBe(true);
    expect(utf8ByteLength(r.text)).toBeLessThanOrEqual(20);
    expect(r.text).toBe('x'.repeat(20 - utf8ByteLength(TRUNCATION_SUFFIX)) + TRUNCATION_SUFFIX);
  });

  it('leaves off a suffix that cannot fit on its own', () => {
    expect(clampText('abcdef', { chars: 3, suffix: TRUNCATION_SUFFIX })).toEqual({
      text: 'abc',
      truncated: true,
    });
  });

  it('clampBytes is the byte-only clamp', () => {
    expect(clampBytes('ééé', 5)).toEqual({ text: 'éé', truncated: true });
  });
});

describe('clampText limits given badly (programming errors) still never overshoot', () => {
  it.each([
    [{ bytes: Number.NaN }, ''],
    [{ bytes: -5 }, ''],
    [{ chars: 2.9 }, 'ab'],
  ])('%j', (opts, expected) => {
    expect(clampText('abc', opts).text).toBe(expected);
  });
});
