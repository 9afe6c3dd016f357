import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64, toBase64 } from './bytes.ts';
import { deriveKey } from './keys.ts';
import { BOX_OVERHEAD_BYTES, NONCE_BYTES, open, seal } from './seal.ts';

const secret = fc.uint8Array({ minLength: 32, maxLength: 32 });
const message = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 6,
});
const codeOf = (r: ReturnType<typeof open>) => (r.ok ? 'ok' : r.code);

describe('seal/open properties (spec "Crypto"; "Decryption failure ⇒ visible error")', () => {
  it('any message round-trips under any key', () => {
    fc.assert(
      fc.property(secret, message, (s, m) => {
        const key = deriveKey(s);
        expect(open(seal(m, key), key)).toEqual({ ok: true, value: JSON.parse(JSON.stringify(m)) });
      }),
      { numRuns: 300 },
    );
  });

  it('any single bit flip, in nonce, tag or ciphertext, fails with auth-failed', () => {
    fc.assert(
      fc.property(secret, message, fc.nat(), fc.integer({ min: 0, max: 7 }), (s, m, pos, bit) => {
        const key = deriveKey(s);
        const bytes = fromBase64(seal(m, key))!;
        bytes[pos % bytes.length]! ^= 1 << bit;
        expect(codeOf(open(toBase64(bytes), key))).toBe('auth-failed');
      }),
      { numRuns: 300 },
    );
  });

  it('any truncation fails: too-short under nonce + tag, auth-failed above', () => {
    fc.assert(
      fc.property(secret, message, fc.nat(), (s, m, cut) => {
        const key = deriveKey(s);
        const bytes = fromBase64(seal(m, key))!;
        const len = cut % bytes.length;
        const expected = len < NONCE_BYTES + BOX_OVERHEAD_BYTES ? 'too-short' : 'auth-failed';
        expect(codeOf(open(toBase64(bytes.subarray(0, len)), key))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('appended bytes fail with auth-failed', () => {
    fc.assert(
      fc.property(secret, message, fc.uint8Array({ minLength: 1, maxLength: 8 }), (s, m, extra) => {
        const key = deriveKey(s);
        const bytes = fromBase64(seal(m, key))!;
        expect(codeOf(open(toBase64(new Uint8Array([...bytes, ...extra])), key))).toBe(
          'auth-failed',
        );
      }),
      { numRuns: 200 },
    );
  });

  it("a wrong key, or another room's key, fails with auth-failed", () => {
    fc.assert(
      fc.property(secret, secret, message, (a, b, m) => {
        fc.pre(a.some((x, i) => x !== b[i]));
        expect(codeOf(open(seal(m, deriveKey(a)), deriveKey(b)))).toBe('auth-failed');
      }),
      { numRuns: 300 },
    );
  });

  it('the raw secret is not the key: sealing with the secret itself does not open with the key', () => {
    fc.assert(
      fc.property(secret, message, (s, m) => {
        expect(codeOf(open(seal(m, s), deriveKey(s)))).toBe('auth-failed');
      }),
      { numRuns: 100 },
    );
  });
});
