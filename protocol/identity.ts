// E9: what a copy of the pairing code cannot forge. Both boxes are nacl.box between the phone's
// key pair and the machine's (the one pinned from the pairing code), so only the two of them can
// make one; each names its kind inside, so a box made for one purpose never reads as the other.
// - `phone.sealed`: the phone's proof that it sent `message` (the inner message's JSON text):
//   box = base64(nonce ‖ nacl.box({kind, sha256 of message}, nonce, machine key, phone secret)).
// - `phone.removed`: the machine's proof that it removed this phone:
//   box = base64(nonce ‖ nacl.box({kind, phoneId}, nonce, phone key, machine secret)).
// Opening never throws: every failure is a value with a code.
import nacl from 'tweetnacl';
import { openBoxed, sealBoxed, type OpenErrorCode } from './boxed.ts';
import { BOX_KEY_BYTES } from './limits.ts';
import { err, ok, type Result } from './result.ts';
import { sha256, sha256Hex } from './sha256.ts';

const SEALED_KIND = 'dsh-dispatch/phone.sealed';
const REMOVED_KIND = 'dsh-dispatch/phone.removed';

export const IDENTITY_OPEN_ERRORS = {
  'bad-key': 'bad-key',
  'bad-base64': 'bad-base64',
  'too-short': 'too-short',
  'auth-failed': 'auth-failed',
  'not-json': 'not-json',
  /** It opened, but it says something else (another kind, another message, another phone). */
  mismatch: 'mismatch',
} as const;
export type IdentityOpenError = keyof typeof IDENTITY_OPEN_ERRORS;

const sized = (...keys: Uint8Array[]) =>
  keys.every((k) => k instanceof Uint8Array && k.length === BOX_KEY_BYTES);

function checkKeys(...keys: Uint8Array[]): void {
  if (!sized(...keys)) throw new RangeError(`a box key is ${BOX_KEY_BYTES} bytes`);
}

function openLabelled(
  box: string,
  senderKey: Uint8Array,
  ownSecretKey: Uint8Array,
  expect: Record<string, string>,
): Result<true, IdentityOpenError> {
  if (!sized(senderKey, ownSecretKey)) {
    return err('bad-key', `A box key is not ${BOX_KEY_BYTES} bytes.`);
  }
  const opened = openBoxed(box, (b, n) => nacl.box.open(b, n, senderKey, ownSecretKey));
  if (!opened.ok) return err(opened.code as OpenErrorCode, opened.message);
  const v = opened.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    return err('mismatch', 'The box does not hold a JSON object.');
  }
  const o = v as Record<string, unknown>;
  for (const [k, want] of Object.entries(expect)) {
    if (o[k] !== want) return err('mismatch', `The box's ${k} is not the expected one.`);
  }
  return ok(true);
}

/** For the phone: the `box` of a `phone.sealed` whose `message` is `messageText`. */
export function sealPhoneMessage(
  messageText: string,
  machineBoxKey: Uint8Array,
  phoneSecretKey: Uint8Array,
  nonce?: Uint8Array,
): string {
  checkKeys(machineBoxKey, phoneSecretKey);
  const plain = { kind: SEALED_KIND, sha256: sha256Hex(messageText) };
  return sealBoxed(plain, (m, n) => nacl.box(m, n, machineBoxKey, phoneSecretKey), nonce);
}

/** For the machine: true when `box` was made by the phone with `phoneBoxKey` for `messageText`. */
export const openPhoneMessage = (
  box: string,
  messageText: string,
  phoneBoxKey: Uint8Array,
  machineSecretKey: Uint8Array,
): Result<true, IdentityOpenError> =>
  openLabelled(box, phoneBoxKey, machineSecretKey, {
    kind: SEALED_KIND,
    sha256: sha256Hex(messageText),
  });

/** For the machine: the `box` of the `phone.removed` it sends a revoked phone. */
export function sealPhoneRemoved(
  phoneId: string,
  phoneBoxKey: Uint8Array,
  machineSecretKey: Uint8Array,
  nonce?: Uint8Array,
): string {
  checkKeys(phoneBoxKey, machineSecretKey);
  return sealBoxed(
    { kind: REMOVED_KIND, phoneId },
    (m, n) => nacl.box(m, n, phoneBoxKey, machineSecretKey),
    nonce,
  );
}

/** For the phone: true only for a removal of `phoneId` boxed by the pinned machine key. */
export const openPhoneRemoved = (
  box: string,
  phoneId: string,
  machineBoxKey: Uint8Array,
  phoneSecretKey: Uint8Array,
): Result<true, IdentityOpenError> =>
  openLabelled(box, machineBoxKey, phoneSecretKey, { kind: REMOVED_KIND, phoneId });

/**
 * A short fingerprint of a box key the owner compares between the desk and a phone:
 * the first 8 bytes of SHA-256("dsh-dispatch/fingerprint" ‖ key) as four groups of hex.
 */
export function boxKeyFingerprint(key: Uint8Array): string {
  checkKeys(key);
  const label = new TextEncoder().encode('dsh-dispatch/fingerprint');
  const input = new Uint8Array(label.length + key.length);
  input.set(label);
  input.set(key, label.length);
  const hex = Array.from(sha256(input).subarray(0, 8), (b) => b.toString(16).padStart(2, '0'));
  return [0, 2, 4, 6].map((i) => hex[i]! + hex[i + 1]!).join('-');
}
