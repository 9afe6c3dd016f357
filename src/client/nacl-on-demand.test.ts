import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import shim, { loadNacl, NACL_NOT_LOADED } from './nacl-on-demand.ts';

// A8: protocol/'s crypto goes through this module in the app build (vite.config.ts), so the
// library is a lazy chunk. It must fail loudly before it loaded, give exactly tweetnacl's results
// after, and offer every member protocol/ calls.
const key = new Uint8Array(32).fill(7);
const nonce = new Uint8Array(24).fill(9);
const message = new TextEncoder().encode('{"type":"sessions.get"}');

describe('A8: the crypto library on demand', () => {
  it('A8: a seal, an open or a key derivation before loadNacl() resolved throws, never guesses', () => {
    expect(() => shim.secretbox(message, nonce, key)).toThrow(NACL_NOT_LOADED);
    expect(() => shim.secretbox.open(message, nonce, key)).toThrow(NACL_NOT_LOADED);
    expect(() => shim.hash(message)).toThrow(NACL_NOT_LOADED);
    expect(() => shim.box.keyPair()).toThrow(NACL_NOT_LOADED);
    expect(() => shim.randomBytes(24)).toThrow(NACL_NOT_LOADED);
  });

  it('A8: once loaded, every member gives exactly what tweetnacl gives', async () => {
    await loadNacl();
    const sealed = shim.secretbox(message, nonce, key);
    expect(sealed).toEqual(nacl.secretbox(message, nonce, key));
    expect(shim.secretbox.open(sealed, nonce, key)).toEqual(message);
    expect(shim.secretbox.open(sealed, nonce, new Uint8Array(32))).toBeNull();
    expect(shim.hash(message)).toEqual(nacl.hash(message));
    const phone = shim.box.keyPair.fromSecretKey(new Uint8Array(32).fill(1));
    const machine = nacl.box.keyPair.fromSecretKey(new Uint8Array(32).fill(2));
    expect(phone).toEqual(nacl.box.keyPair.fromSecretKey(new Uint8Array(32).fill(1)));
    const boxed = shim.box(message, nonce, machine.publicKey, phone.secretKey);
    expect(boxed).toEqual(nacl.box(message, nonce, machine.publicKey, phone.secretKey));
    expect(shim.box.open(boxed, nonce, phone.publicKey, machine.secretKey)).toEqual(message);
    expect(shim.box.keyPair().publicKey).toHaveLength(32);
    expect(shim.randomBytes(24)).toHaveLength(24);
  });

  it('A8: every nacl member protocol/ calls exists on the on-demand module', () => {
    const sources = import.meta.glob<string>(['../../protocol/*.ts', '!../../protocol/*.test.ts'], {
      query: '?raw',
      import: 'default',
      eager: true,
    });
    const used = new Set<string>();
    for (const text of Object.values(sources)) {
      const code = text.replace(/\/\/.*$/gm, '').replace(/\/\*[\s\S]*?\*\//g, '');
      for (const m of code.matchAll(/\bnacl((?:\.[a-zA-Z]+)+)/g)) used.add(m[1]!.slice(1));
    }
    expect([...used].length).toBeGreaterThan(3);
    const missing = [...used].filter(
      (path) =>
        path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], shim) ===
        undefined,
    );
    expect(missing).toEqual([]);
  });
});
