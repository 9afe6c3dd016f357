import { describe, expect, it } from 'vitest';
import {
  base64DecodedLength,
  decodeCanonicalBase64,
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
