import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import nacl from 'tweetnacl';
import {
  checkPresenceDigests,
  checkVectors,
  fromHex,
  toHex,
} from './test-support/vector-runner.ts';
import { VECTOR_FILES, vectorsDir, x25519, x25519Public } from './test-support/make-vectors.ts';
import { boxKeyFromShared, secretbox } from './test-support/xsalsa20poly1305.ts';

describe('known-answer vectors (protocol/vectors/*.json, made without protocol/ or tweetnacl)', () => {
  const checks = checkVectors();
  it('cover at least five secrets incl. all-zero and all-0xFF, sealed messages, pairing codes, parse outcomes, pushes', () => {
    const groups = (g: string) => checks.filter((c) => c.group === g).map((c) => c.name);
    expect(groups('keys').length).toBeGreaterThanOrEqual(5);
    expect(groups('keys')).toEqual(expect.arrayContaining(['all-zero', 'all-0xff']));
    expect(groups('seal').length).toBeGreaterThanOrEqual(5);
    expect(groups('open-failure').length).toBeGreaterThanOrEqual(5);
    expect(groups('pairing').length).toBeGreaterThanOrEqual(5);
    expect(groups('pairing-invalid').length).toBeGreaterThanOrEqual(8);
    expect(groups('messages').length).toBeGreaterThanOrEqual(34);
    expect(groups('push').length).toBe(5);
    expect(groups('rotate-keys')).toEqual(['machine', 'phone', 'other']);
    expect(groups('rotate').length).toBeGreaterThanOrEqual(3);
    expect(groups('rotate-failure')).toEqual(
      expect.arrayContaining([
        'boxed by another sender',
        'boxed for another phone',
        "opened by another phone's key",
        'one bit flipped',
      ]),
    );
    expect(groups('presence').length).toBeGreaterThanOrEqual(5);
    expect(groups('presence-refused').length).toBeGreaterThanOrEqual(5);
  });

  it("E7: WebCrypto's SHA-256 (what the page uses) gives every pinned challenge", async () => {
    const checks = await checkPresenceDigests((data) => crypto.subtle.digest('SHA-256', data));
    expect(checks.length).toBeGreaterThanOrEqual(5);
    expect(checks.filter((c) => c.problem !== null)).toEqual([]);
  });

  it.each(checks.map((c) => [`${c.group}: ${c.name}`, c.problem] as const))(
    'matches byte for byte — %s',
    (_name, problem) => {
      expect(problem).toBeNull();
    },
  );

  it.each(Object.entries(VECTOR_FILES))(
    '%s is exactly what the generator produces (reproducible, not hand-edited)',
    (file, make) => {
      const committed = JSON.parse(readFileSync(path.join(vectorsDir, file), 'utf8'));
      expect(committed).toEqual(JSON.parse(JSON.stringify(make())));
    },
  );
});

describe('the independent secretbox used to make the vectors', () => {
  it("reproduces NaCl's published crypto_secretbox vector (tests/secretbox.c)", () => {
    const key = fromHex('1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389');
    const nonce = fromHex('69696ee955b62b73cd62bda875fc73d68219e0036b7a0b37');
    const m = fromHex(
      'be075fc53c81f2d5cf141316ebeb0c7b5228c52a4c62cbd44b66849b64244ffce5ecbaaf33bd751a1ac728d45e6c61296cdc3c01233561f41db66cce314adb310e3be8250c46f06dceea3a7fa1348057e2f6556ad6b1318a024a838f21af1fde048977eb48f59ffd4924ca1c60902e52f0a089bc76897040e082f937763848645e0705',
    );
    const expected =
      'f3ffc7703f9400e52a7dfb4b3d3305d98e993b9f48681273c29650ba32fc76ce48332ea7164d96a4476fb8c531a1186ac0dfc17c98dce87b4da7f011ec48c97271d2c20f9b928fe2270d6fb863d51738b48eeee314a7cc8ab932164548e526ae90224368517acfeabd6bb3732bc0e9da99832b61ca01b6de56244a9e88d5f9b37973f622a43d14a6599b1f654cb45a74e355a5';
    expect(toHex(secretbox(m, nonce, key))).toBe(expected);
    expect(toHex(nacl.secretbox(m, nonce, key))).toBe(expected);
  });
});

describe('the independent nacl.box used to make the room.rotate vectors', () => {
  // NaCl's tests/box.c: Alice's secret key, Bob's public key; the published crypto_box_beforenm
  // of the pair is the "firstkey" of tests/secretbox.c, so the secretbox vector above is also
  // crypto_box(m, nonce, bobpk, alicesk).
  const alicesk = fromHex('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a');
  const bobsk = fromHex('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb');
  const bobpk = 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f';
  it('derives the published public keys and box key (RFC 7748 §6.1, NaCl box.c)', () => {
    expect(toHex(x25519Public(bobsk))).toBe(bobpk);
    expect(toHex(x25519Public(alicesk))).toBe(
      '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a',
    );
    const shared = x25519(alicesk, fromHex(bobpk));
    expect(toHex(shared)).toBe('4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742');
    expect(toHex(boxKeyFromShared(shared))).toBe(
      '1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389',
    );
    expect(toHex(nacl.box.before(fromHex(bobpk), alicesk))).toBe(
      '1b27556473e985d462cd51197a9a46c76009549eac6474f206c4ee0844f68389',
    );
  });
});
