import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deriveKey, deriveRoomId, generateSecret, roomKeys } from './keys.ts';
import { ROOM_ID_PATTERN } from './limits.ts';

const sha512 = (label: string, secret: Uint8Array) =>
  createHash('sha512').update(label).update(secret).digest();

describe('keys (spec "Crypto")', () => {
  it('Room id = base64url(SHA-512("dsh-dispatch/room" ‖ secret)[0..16]), 22 chars, checked against node:crypto', () => {
    const secret = generateSecret();
    const expected = sha512('dsh-dispatch/room', secret).subarray(0, 16).toString('base64url');
    expect(deriveRoomId(secret)).toBe(expected);
    expect(deriveRoomId(secret)).toHaveLength(22);
    expect(deriveRoomId(secret)).toMatch(ROOM_ID_PATTERN);
  });

  it('Key = SHA-512("dsh-dispatch/key" ‖ secret)[0..32], checked against node:crypto', () => {
    const secret = generateSecret();
    const expected = new Uint8Array(sha512('dsh-dispatch/key', secret).subarray(0, 32));
    expect(deriveKey(secret)).toEqual(expected);
    expect(roomKeys(secret)).toEqual({ roomId: deriveRoomId(secret), key: expected });
  });

  it('Pairing secret: 32 CSPRNG bytes, different every time', () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toHaveLength(32);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
  });

  it('a secret that is not 32 bytes is a programming error (RangeError)', () => {
    expect(() => deriveKey(new Uint8Array(31))).toThrow(RangeError);
    expect(() => deriveRoomId(new Uint8Array(33))).toThrow(RangeError);
  });
});
