import { Buffer } from 'node:buffer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64DecodedLength,
  decodeCanonicalBase64,
  decodeCanonicalBase64Into,
  encodeBase64,
  isCanonicalBase64,
} from './base64.ts';

describe('§4 canonical base64', () => {
  it('accepts exactly the form that re-encodes to itself', () => {
    for (const s of ['', 'AA==', 'AAA=', 'AAAA', 'aGVsbG8=', '+/+/'])
      expect(isCanonicalBase64(s), s).toBe(true);
  });
  it('refuses sloppy variants', () => {
    for (const s of [
      'AB==',
      'AAB=',
      'aGVsbG8',
      'aGVsbG8==',
      'aGVs\nbG8=',
      '-_-_',
      'AA=A',
      ' AAAA',
      'A===',
    ]) {
      expect(isCanonicalBase64(s), JSON.stringify(s)).toBe(false);
      expect(decodeCanonicalBase64(s)).toBeNull();
    }
    expect(isCanonicalBase64(42)).toBe(false);
  });
  it('encodes canonically and knows the decoded length', () => {
    const bytes = new Uint8Array([1, 2, 3, 4, 5]);
    const s = encodeBase64(bytes);
    expect(isCanonicalBase64(s)).toBe(true);
    expect(base64DecodedLength(s)).toBe(5);
    expect([...(decodeCanonicalBase64(s) as Uint8Array)]).toEqual([1, 2, 3, 4, 5]);
    expect(encodeBase64(new Uint8Array(8).subarray(2, 4))).toBe('AAA=');
  });
});

describe('§4 canonical base64: the check agrees with its definition', () => {
  /** The definition: what decodes and re-encodes to exactly itself. */
  const reference = (s: string) => Buffer.from(s, 'base64').toString('base64') === s;
  const noise = [
    '=',
    '-',
    '_',
    ' ',
    '\n',
    '\r',
    '\t',
    '.',
    '!',
    '"',
    '\\',
    'é',
    '\u0000',
    '\u00ff',
    'A',
    '+',
    '/',
  ];

  it('on every edit of canonical strings (property)', () => {
    const edit = fc.record({
      at: fc.nat({ max: 40 }),
      drop: fc.nat({ max: 2 }),
      insert: fc.array(fc.constantFrom(...noise), { maxLength: 2 }).map((a) => a.join('')),
    });
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 24 }),
        fc.array(edit, { maxLength: 3 }),
        (bytes, edits) => {
          let s = Buffer.from(bytes).toString('base64');
          for (const e of edits) {
            const at = Math.min(e.at, s.length);
            s = s.slice(0, at) + e.insert + s.slice(at + e.drop);
          }
          expect(isCanonicalBase64(s), JSON.stringify(s)).toBe(reference(s));
          const d = decodeCanonicalBase64(s);
          if (d !== null) expect(d.equals(Buffer.from(s, 'base64'))).toBe(true);
          // Decoding into a caller's buffer gives the same verdict and the same bytes.
          const into = decodeCanonicalBase64Into(s, Buffer.alloc(s.length + 4, 0xaa));
          expect(into === null, JSON.stringify(s)).toBe(d === null);
          if (into !== null) expect(into.equals(d as Buffer)).toBe(true);
        },
      ),
      { numRuns: 20000 },
    );
  });

  it('on every 4-symbol string over the alphabet edges and the noise (exhaustive)', () => {
    // Symbols whose low bits differ (A 0, B 1, E 4, Q 16, / 63), padding, URL-safe, noise.
    const symbols = ['A', 'B', 'E', 'Q', '/', '=', '-', '_', ' ', '\n', 'é', '.'];
    for (const a of symbols)
      for (const b of symbols)
        for (const c of symbols)
          for (const d of symbols) {
            const s = a + b + c + d;
            expect(isCanonicalBase64(s), JSON.stringify(s)).toBe(reference(s));
            expect(isCanonicalBase64(`AAAA${s}`), JSON.stringify(s)).toBe(reference(`AAAA${s}`));
            const into = decodeCanonicalBase64Into(`AAAA${s}`, Buffer.alloc(12));
            expect(into !== null, JSON.stringify(s)).toBe(reference(`AAAA${s}`));
          }
  });
});
