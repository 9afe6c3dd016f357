import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256, sha256Hex } from './sha256.ts';

const node = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('E9: the one SHA-256 the challenge builder uses', () => {
  it('E9: FIPS 180-4 answers for "", "abc" and the two-block message', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });
  it('E9: equals node:crypto at every length around the block and padding edges, and on random data', () => {
    for (let n = 0; n <= 200; n++) {
      const b = randomBytes(n);
      expect(hex(sha256(b))).toBe(node(b));
    }
    for (const n of [1000, 4096, 65_537]) {
      const b = randomBytes(n);
      expect(hex(sha256(b))).toBe(node(b));
    }
  });
  it('E9: equals WebCrypto (what the page has) on UTF-8 text', async () => {
    const text = 'dsh-dispatch/decision\n部屋\n✓ npm test';
    const web = new Uint8Array(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)),
    );
    expect(sha256Hex(text)).toBe(hex(web));
  });
});
