import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519PublicKeyFromRaw, rawEd25519PublicKey, signHello } from './ed25519.ts';
import { buildHelloSignaturePayload } from './hello-payload.ts';

const VECTOR = {
  nonce: 'bm9uY2UtdGVzdC12ZWN0b3I=',
  deviceId: 'dev_01J8ZQ4T9X0000000000000000',
  epoch: '01J8ZQ4T9X7M3K5N6P8R0S2V4W',
  protocolVersion: 1,
};
const EXPECTED_HEX =
  '73656d612e6465766963652e68656c6c6f2e763100000018626d3975593255746447567a644331325a574e306233493d0000001e6465765f30314a385a51345439583030303030303030303030303030303001923f72693d3d0732d4d64601916c9c00000001';

describe('§1.3 hello signature payload', () => {
  it('reproduces the spec vector byte for byte (102 bytes)', () => {
    const payload = buildHelloSignaturePayload(VECTOR);
    expect(payload.length).toBe(102);
    expect(Buffer.from(payload).toString('hex')).toBe(EXPECTED_HEX);
  });

  it('length prefixes are UTF-8 byte lengths, not character counts', () => {
    const p = Buffer.from(buildHelloSignaturePayload({ ...VECTOR, nonce: 'é' }));
    const tag = 'sema.device.hello.v1'.length;
    expect(p.readUInt32BE(tag)).toBe(2);
  });

  it('refuses a protocolVersion that is not a u32', () => {
    expect(() => buildHelloSignaturePayload({ ...VECTOR, protocolVersion: -1 })).toThrow(/u32/);
    expect(() => buildHelloSignaturePayload({ ...VECTOR, protocolVersion: 1.5 })).toThrow(/u32/);
  });

  it('signHello verifies against the raw public key wrapped as SPKI', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const raw = rawEd25519PublicKey(publicKey);
    expect(raw.length).toBe(32);
    expect(rawEd25519PublicKey(privateKey).equals(raw)).toBe(true);
    const sig = Buffer.from(signHello(privateKey, VECTOR), 'base64');
    expect(sig.length).toBe(64);
    const key = ed25519PublicKeyFromRaw(raw);
    expect(verify(null, buildHelloSignaturePayload(VECTOR), key, sig)).toBe(true);
    const other = buildHelloSignaturePayload({ ...VECTOR, nonce: 'other' });
    expect(verify(null, other, key, sig)).toBe(false);
  });

  it('ed25519PublicKeyFromRaw refuses a wrong length', () => {
    expect(() => ed25519PublicKeyFromRaw(new Uint8Array(31))).toThrow(/32 bytes/);
  });
});
