import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromBase64, toBase64, toBase64Url } from './bytes.ts';
import { generateSecret } from './keys.ts';
import {
  boxKeyPairFromSecretKey,
  decodeBoxKey,
  encodeBoxKey,
  makeBoxKeyPair,
  openRoomRotate,
  sealRoomRotate,
} from './rotate-box.ts';

const machine = makeBoxKeyPair();
const phone = makeBoxKeyPair();
const other = makeBoxKeyPair();
const contents = { secret: toBase64Url(generateSecret()), relay: 'wss://relay.example.com' };
const box = sealRoomRotate(contents, phone.publicKey, machine.secretKey);

describe('E6: box keys', () => {
  it('E6: a key pair is 32 + 32 bytes, fresh each time, and restorable from its secret key', () => {
    expect(machine.publicKey).toHaveLength(32);
    expect(machine.secretKey).toHaveLength(32);
    expect(encodeBoxKey(machine.publicKey)).not.toBe(encodeBoxKey(phone.publicKey));
    expect(boxKeyPairFromSecretKey(phone.secretKey).publicKey).toEqual(phone.publicKey);
  });
  it('E6: a box key travels as standard base64 and decodes back; anything else is null', () => {
    const text = encodeBoxKey(phone.publicKey);
    expect(text).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(decodeBoxKey(text)).toEqual(phone.publicKey);
    expect(decodeBoxKey(toBase64Url(phone.publicKey))).toBeNull();
    expect(decodeBoxKey(toBase64(new Uint8Array(31)))).toBeNull();
    expect(decodeBoxKey(7 as unknown as string)).toBeNull();
  });
  it('E6: a key of the wrong size is a caller bug (RangeError)', () => {
    expect(() => encodeBoxKey(new Uint8Array(31))).toThrow(RangeError);
    expect(() => boxKeyPairFromSecretKey(new Uint8Array(33))).toThrow(RangeError);
  });
});

describe('E6: room.rotate boxes', () => {
  it('E6: the phone opens its own box and gets the new secret and relay', () => {
    const r = openRoomRotate(box, machine.publicKey, phone.secretKey);
    expect(r.ok && { secret: r.value.secret, relay: r.value.relay }).toEqual(contents);
    expect(r.ok && toBase64Url(r.value.secretBytes)).toBe(contents.secret);
  });
  it('E6: a box from another sender is auth-failed, never an exception', () => {
    const forged = sealRoomRotate(contents, phone.publicKey, other.secretKey);
    expect(openRoomRotate(forged, machine.publicKey, phone.secretKey)).toMatchObject({
      ok: false,
      code: 'auth-failed',
    });
  });
  it("E6: another phone's box does not open with this phone's key (auth-failed)", () => {
    expect(openRoomRotate(box, machine.publicKey, other.secretKey)).toMatchObject({
      ok: false,
      code: 'auth-failed',
    });
  });
  it('E6: every single-bit change of a box is refused, never an exception', () => {
    const bytes = fromBase64(box)!;
    for (let i = 0; i < bytes.length; i++) {
      const t = bytes.slice();
      t[i] = t[i]! ^ (1 << (i % 8));
      expect(openRoomRotate(toBase64(t), machine.publicKey, phone.secretKey)).toMatchObject({
        ok: false,
        code: 'auth-failed',
      });
    }
  });
  it.each([
    ['bad-key', () => openRoomRotate(box, new Uint8Array(31), phone.secretKey)],
    ['bad-key', () => openRoomRotate(box, machine.publicKey, 'k' as unknown as Uint8Array)],
    [
      'bad-base64',
      () => openRoomRotate(7 as unknown as string, machine.publicKey, phone.secretKey),
    ],
    ['bad-base64', () => openRoomRotate('a-b_', machine.publicKey, phone.secretKey)],
    [
      'too-short',
      () => openRoomRotate(toBase64(new Uint8Array(39)), machine.publicKey, phone.secretKey),
    ],
  ])('E6: %s is a failure value, never an exception', (code, run) => {
    expect(run()).toMatchObject({ ok: false, code });
  });
  it('E6: the machine never boxes a secret or relay a pairing code could not carry', () => {
    const bad = [
      { ...contents, secret: toBase64Url(new Uint8Array(16)) },
      { ...contents, secret: toBase64(generateSecret()) },
      { ...contents, relay: 'ws://relay.example.com' },
      { ...contents, relay: 'wss://user:pw@relay.example.com' },
    ];
    for (const c of bad) {
      expect(() => sealRoomRotate(c, phone.publicKey, machine.secretKey)).toThrow(RangeError);
    }
    expect(() => sealRoomRotate(contents, new Uint8Array(5), machine.secretKey)).toThrow(
      RangeError,
    );
  });
  it('E6: two boxes of the same contents differ (a fresh nonce each time)', () => {
    expect(sealRoomRotate(contents, phone.publicKey, machine.secretKey)).not.toBe(box);
  });
});

describe('E6: room.rotate properties', () => {
  const relay = fc.constantFrom(
    'wss://relay.example.com',
    'ws://127.0.0.1:8787',
    'wss://r.example:8443/ws?x=1',
    'wss://中继.example',
  );
  it('E6: whatever is boxed opens to itself, and only for the right phone from the right machine', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), relay, (secret, r) => {
        const c = { secret: toBase64Url(secret), relay: r };
        const b = sealRoomRotate(c, phone.publicKey, machine.secretKey);
        const opened = openRoomRotate(b, machine.publicKey, phone.secretKey);
        expect(opened.ok && opened.value.secret === c.secret && opened.value.relay === r).toBe(
          true,
        );
        expect(openRoomRotate(b, other.publicKey, phone.secretKey).ok).toBe(false);
        expect(openRoomRotate(b, machine.publicKey, other.secretKey).ok).toBe(false);
      }),
      { numRuns: 50 },
    );
  });
  it('E6: any string as a box is a failure value, never an exception', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (s) => {
        const r = openRoomRotate(s, machine.publicKey, phone.secretKey);
        expect(r.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
