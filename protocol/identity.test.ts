import { describe, expect, it } from 'vitest';
import { toBase64, fromBase64 } from './bytes.ts';
import {
  boxKeyFingerprint,
  openPhoneMessage,
  openPhoneRemoved,
  sealPhoneMessage,
  sealPhoneRemoved,
} from './identity.ts';
import { parseMachineMessage, parsePhoneMessage } from './messages.ts';
import { encodePairing, parsePairing } from './pairing.ts';
import { makeBoxKeyPair, sealRoomRotate } from './rotate-box.ts';
import { toBase64Url } from './bytes.ts';

const machine = makeBoxKeyPair();
const phone = makeBoxKeyPair();
const other = makeBoxKeyPair();
const text = JSON.stringify({ v: 1, type: 'sessions.get', ts: 1 });

describe('E9: phone.sealed and phone.removed boxes', () => {
  it('E9: a phone.sealed box opens only for the text it was made for, from that phone, at that machine', () => {
    const box = sealPhoneMessage(text, machine.publicKey, phone.secretKey);
    expect(openPhoneMessage(box, text, phone.publicKey, machine.secretKey)).toEqual({
      ok: true,
      value: true,
    });
    // Another text under the same box (a copied code holder swapping the message).
    expect(openPhoneMessage(box, text + ' ', phone.publicKey, machine.secretKey)).toMatchObject({
      ok: false,
      code: 'mismatch',
    });
    // Made by another key pair (the attacker's own) but claiming this phone.
    const forged = sealPhoneMessage(text, machine.publicKey, other.secretKey);
    expect(openPhoneMessage(forged, text, phone.publicKey, machine.secretKey)).toMatchObject({
      ok: false,
      code: 'auth-failed',
    });
    const flipped = fromBase64(box)!;
    flipped[30] = flipped[30]! ^ 1;
    expect(
      openPhoneMessage(toBase64(flipped), text, phone.publicKey, machine.secretKey),
    ).toMatchObject({ ok: false, code: 'auth-failed' });
  });

  it('E9: phone.removed opens only for its own phone id, only boxed by the pinned machine key', () => {
    const box = sealPhoneRemoved('p-1', phone.publicKey, machine.secretKey);
    expect(openPhoneRemoved(box, 'p-1', machine.publicKey, phone.secretKey).ok).toBe(true);
    expect(openPhoneRemoved(box, 'p-2', machine.publicKey, phone.secretKey)).toMatchObject({
      code: 'mismatch',
    });
    const byOther = sealPhoneRemoved('p-1', phone.publicKey, other.secretKey);
    expect(openPhoneRemoved(byOther, 'p-1', machine.publicKey, phone.secretKey)).toMatchObject({
      code: 'auth-failed',
    });
  });

  it('E9: a box made for one purpose never reads as another (rotate, sealed, removed share a key pair)', () => {
    const sealed = sealPhoneMessage(text, machine.publicKey, phone.secretKey);
    expect(openPhoneRemoved(sealed, 'p-1', machine.publicKey, phone.secretKey)).toMatchObject({
      code: 'mismatch',
    });
    const rotate = sealRoomRotate(
      { secret: toBase64Url(new Uint8Array(32)), relay: 'wss://relay.example' },
      phone.publicKey,
      machine.secretKey,
    );
    expect(openPhoneRemoved(rotate, 'p-1', machine.publicKey, phone.secretKey)).toMatchObject({
      code: 'mismatch',
    });
    expect(openPhoneMessage(rotate, text, phone.publicKey, machine.secretKey)).toMatchObject({
      code: 'mismatch',
    });
  });

  it('E9: a fingerprint is four groups of hex, the same for the same key, different for another', () => {
    const f = boxKeyFingerprint(phone.publicKey);
    expect(f).toMatch(/^[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}$/);
    expect(boxKeyFingerprint(phone.publicKey)).toBe(f);
    expect(boxKeyFingerprint(other.publicKey)).not.toBe(f);
  });
});

describe('E9: the wire shapes', () => {
  it('E9: the pairing code carries the machine box key (base64url); a bad one is refused; an old code has none', () => {
    const base = {
      v: 1 as const,
      relay: 'wss://r.example',
      secret: toBase64Url(new Uint8Array(32)),
      machine: 'm',
    };
    const key = toBase64Url(machine.publicKey);
    const parsed = parsePairing(encodePairing({ ...base, boxKey: key }));
    expect(parsed.ok && parsed.value.boxKey).toBe(key);
    const old = parsePairing(encodePairing(base));
    expect(old.ok && old.value.boxKey).toBeUndefined();
    expect(parsePairing(encodePairing({ ...base, boxKey: 'abc' }))).toMatchObject({
      ok: false,
      code: 'bad-box-key',
    });
  });

  it('E9: phone.sealed, phone.approve and phone.removed parse; a sealed box that is not base64 is invalid', () => {
    const box = sealPhoneMessage(text, machine.publicKey, phone.secretKey);
    const sealed = { v: 1, type: 'phone.sealed', ts: 1, phoneId: 'p-1', message: text, box };
    expect(parsePhoneMessage(sealed)).toMatchObject({ ok: true });
    expect(parsePhoneMessage({ ...sealed, box: 'not base64!' })).toMatchObject({
      ok: false,
      ignored: false,
    });
    expect(
      parsePhoneMessage({ v: 1, type: 'phone.approve', ts: 1, requestId: 'r', phoneId: 'p-2' }),
    ).toMatchObject({ ok: true });
    const removed = sealPhoneRemoved('p-1', phone.publicKey, machine.secretKey);
    expect(
      parseMachineMessage({ v: 1, type: 'phone.removed', ts: 1, phoneId: 'p-1', box: removed }),
    ).toMatchObject({ ok: true });
    // D12: each side acts only on its own direction.
    expect(parseMachineMessage(sealed)).toMatchObject({ ok: false, code: 'wrong-direction' });
  });

  it('E9: a phones entry carries its state and fingerprint; an unknown state is invalid', () => {
    const entry = {
      phoneId: 'p-1',
      name: 'A',
      firstSeen: 1,
      lastSeen: 1,
      revoked: false,
      presence: false,
      state: 'pending',
      fingerprint: 'abcd-ef01-2345-6789',
    };
    expect(parseMachineMessage({ v: 1, type: 'phones', ts: 1, phones: [entry] })).toMatchObject({
      ok: true,
      value: { phones: [{ state: 'pending', fingerprint: 'abcd-ef01-2345-6789' }] },
    });
    expect(
      parseMachineMessage({ v: 1, type: 'phones', ts: 1, phones: [{ ...entry, state: 'boss' }] }),
    ).toMatchObject({ ok: false });
  });
});
