// E6: each phone's X25519 key pair and the `room.rotate` box that hands a remaining phone the new
// pairing secret after a revoke: box = base64(nonce ‖ nacl.box(JSON {secret, relay}, nonce,
// phone's public key, machine's secret key)). Opening never throws: a box from another sender,
// for another phone, or changed on the way is a failure value with a code.
import nacl from 'tweetnacl';
import { openBoxed, sealBoxed } from './boxed.ts';
import { fromBase64, fromBase64Url, toBase64 } from './bytes.ts';
import { BOX_KEY_BYTES } from './limits.ts';
import { checkRelay } from './pairing.ts';
import { SECRET_BYTES } from './keys.ts';
import { err, ok, type Result } from './result.ts';

export type BoxKeyPair = { publicKey: Uint8Array; secretKey: Uint8Array };

/** A fresh X25519 key pair from the platform CSPRNG. */
export const makeBoxKeyPair = (): BoxKeyPair => nacl.box.keyPair();

function checkKey(key: Uint8Array, what: string): void {
  if (!(key instanceof Uint8Array) || key.length !== BOX_KEY_BYTES) {
    throw new RangeError(`${what} is ${BOX_KEY_BYTES} bytes`);
  }
}

/** The pair again from a stored secret key (throws RangeError unless it is 32 bytes). */
export function boxKeyPairFromSecretKey(secretKey: Uint8Array): BoxKeyPair {
  checkKey(secretKey, 'a box secret key');
  return nacl.box.keyPair.fromSecretKey(secretKey);
}

/** Standard base64, as keys travel on the wire (`boxKey`); throws RangeError unless 32 bytes. */
export function encodeBoxKey(key: Uint8Array): string {
  checkKey(key, 'a box key');
  return toBase64(key);
}

/** The 32 key bytes of a wire `boxKey`, or null for anything else. */
export function decodeBoxKey(text: string): Uint8Array | null {
  const bytes = typeof text === 'string' ? fromBase64(text) : null;
  return bytes !== null && bytes.length === BOX_KEY_BYTES ? bytes : null;
}

/** What a `room.rotate` box carries: the new secret (base64url, as in pairing) and the relay. */
export type RoomRotateContents = { secret: string; relay: string };
export type OpenedRoomRotate = RoomRotateContents & { secretBytes: Uint8Array };

export const ROTATE_OPEN_ERRORS = {
  'bad-key': 'bad-key',
  'bad-base64': 'bad-base64',
  'too-short': 'too-short',
  'auth-failed': 'auth-failed',
  'not-json': 'not-json',
  'bad-secret': 'bad-secret',
  'bad-relay-url': 'bad-relay-url',
} as const;
export type RotateOpenErrorCode = keyof typeof ROTATE_OPEN_ERRORS;

/**
 * For the machine: boxes `contents` to one phone. Throws RangeError on a wrong-sized key, a
 * secret that is not 32 bytes of base64url, or a relay URL a pairing code could not carry
 * (caller bugs). The nonce argument exists for known-answer vectors only.
 */
export function sealRoomRotate(
  contents: RoomRotateContents,
  phoneBoxKey: Uint8Array,
  machineSecretKey: Uint8Array,
  nonce?: Uint8Array,
): string {
  checkKey(phoneBoxKey, "the phone's box key");
  checkKey(machineSecretKey, "the machine's box secret key");
  if (fromBase64Url(contents.secret)?.length !== SECRET_BYTES) {
    throw new RangeError(`the secret is ${SECRET_BYTES} bytes of base64url`);
  }
  const relayProblem = checkRelay(contents.relay);
  if (relayProblem !== null) throw new RangeError(relayProblem);
  const plain = { secret: contents.secret, relay: contents.relay };
  return sealBoxed(plain, (m, n) => nacl.box(m, n, phoneBoxKey, machineSecretKey), nonce);
}

/**
 * For the phone: opens its own `room.rotate` box. `machineBoxKey` is the `boxKey` the phone
 * trusts for this machine (decodeBoxKey of `machine.status.boxKey`); a box made with any other
 * machine key, for another phone, or altered fails with `auth-failed`.
 */
export function openRoomRotate(
  box: string,
  machineBoxKey: Uint8Array,
  phoneSecretKey: Uint8Array,
): Result<OpenedRoomRotate, RotateOpenErrorCode> {
  const sizes = [machineBoxKey, phoneSecretKey];
  if (!sizes.every((k) => k instanceof Uint8Array && k.length === BOX_KEY_BYTES)) {
    return err('bad-key', `A box key is not ${BOX_KEY_BYTES} bytes.`);
  }
  const opened = openBoxed(box, (b, n) => nacl.box.open(b, n, machineBoxKey, phoneSecretKey));
  if (!opened.ok) return opened;
  const value = opened.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return err('not-json', 'The box does not hold a JSON object.');
  }
  const { secret, relay } = value as Record<string, unknown>;
  const secretBytes = typeof secret === 'string' ? fromBase64Url(secret) : null;
  if (!secretBytes || secretBytes.length !== SECRET_BYTES) {
    return err('bad-secret', `The new secret is not ${SECRET_BYTES} bytes of base64url.`);
  }
  const relayProblem = checkRelay(relay);
  if (relayProblem !== null) return err('bad-relay-url', relayProblem);
  return ok({ secret: secret as string, relay: relay as string, secretBytes });
}
