import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64, toBase64 } from './bytes.ts';
import { deriveKey, generateSecret } from './keys.ts';
import { open, seal, sealedLength } from './seal.ts';

const key = deriveKey(new Uint8Array(32).fill(7));
const codeOf = (r: ReturnType<typeof open>) => (r.ok ? 'ok' : r.code);

describe('seal/open (spec "Crypto": secretbox, base64(nonce ‖ box))', () => {
  it('round-trips a message and uses a fresh 24-byte nonce each time', () => {
    const msg = { v: 1, type: 'sessions.get', ts: 1 };
    const a = seal(msg, key);
    const b = seal(msg, key);
    expect(a).not.toBe(b);
    expect(fromBase64(a)!.subarray(0, 24)).not.toEqual(fromBase64(b)!.subarray(0, 24));
    expect(open(a, key)).toEqual({ ok: true, value: msg });
    expect(a.length).toBe(sealedLength(JSON.stringify(msg).length));
  });

  it('Decryption failure is a value: bad-base64', () => {
    expect(codeOf(open('not base64!', key))).toBe('bad-base64');
  });

  it('Decryption failure is a value: a payload that is not a string is bad-base64, not a throw', () => {
    expect(codeOf(open(42 as unknown as string, key))).toBe('bad-base64');
    expect(codeOf(open(null as unknown as string, key))).toBe('bad-base64');
  });

  it('Decryption failure is a value: too-short (under nonce + tag)', () => {
    expect(codeOf(open(toBase64(new Uint8Array(39)), key))).toBe('too-short');
  });

  it('Decryption failure is a value: auth-failed with another key', () => {
    expect(codeOf(open(seal({ a: 1 }, key), deriveKey(generateSecret())))).toBe('auth-failed');
  });

  it('Decryption failure is a value: not-json when the plaintext is not JSON', async () => {
    const nacl = (await import('tweetnacl')).default;
    const nonce = new Uint8Array(24);
    const box = nacl.secretbox(new TextEncoder().encode('{nope'), nonce, key);
    expect(codeOf(open(toBase64(new Uint8Array([...nonce, ...box])), key))).toBe('not-json');
    const bad = nacl.secretbox(new Uint8Array([0xff, 0xfe]), nonce, key);
    expect(codeOf(open(toBase64(new Uint8Array([...nonce, ...bad])), key))).toBe('not-json');
  });

  it('property: any JSON object round-trips', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (m) => {
        const r = open(seal(m, key), key);
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.value).toEqual(JSON.parse(JSON.stringify(m)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('seal constants', () => {
  it('NONCE_BYTES and BOX_OVERHEAD_BYTES are what tweetnacl uses', async () => {
    const nacl = (await import('tweetnacl')).default;
    const { NONCE_BYTES, BOX_OVERHEAD_BYTES } = await import('./seal.ts');
    expect(NONCE_BYTES).toBe(nacl.secretbox.nonceLength);
    expect(BOX_OVERHEAD_BYTES).toBe(nacl.secretbox.overheadLength);
  });
});
