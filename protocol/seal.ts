// End-to-end encryption of inner messages: base64(nonce ‖ nacl.secretbox(JSON)). Opening never
// throws: every failure is a value with a code, so "decryption failed" is always visible.
import nacl from 'tweetnacl';
import { fromBase64, toBase64, utf8Decode, utf8Encode } from './bytes.ts';
import { err, ok, type Result } from './result.ts';

// Literals, not nacl.secretbox.nonceLength: reading a property at load would be a side effect
// that keeps this module in every bundle (protocol/tree-shaking.test.ts).
export const NONCE_BYTES = 24;
/** Poly1305 tag added by secretbox. */
export const BOX_OVERHEAD_BYTES = 16;

export const OPEN_ERRORS = {
  'bad-base64': 'bad-base64',
  'too-short': 'too-short',
  'auth-failed': 'auth-failed',
  'not-json': 'not-json',
} as const;
export type OpenErrorCode = keyof typeof OPEN_ERRORS;

/** Length of the base64 payload that seals `plaintextBytes` bytes of JSON. */
export const sealedLength = (plaintextBytes: number): number =>
  4 * Math.ceil((NONCE_BYTES + BOX_OVERHEAD_BYTES + plaintextBytes) / 3);

/**
 * Seals `message` as JSON. The nonce is 24 fresh CSPRNG bytes; passing one exists only so that
 * known-answer vectors can be reproduced — never reuse a nonce with the same key.
 */
export function seal(message: object, key: Uint8Array, nonce?: Uint8Array): string {
  const n = nonce ?? nacl.randomBytes(NONCE_BYTES);
  if (n.length !== NONCE_BYTES) throw new RangeError(`a nonce is ${NONCE_BYTES} bytes`);
  const box = nacl.secretbox(utf8Encode(JSON.stringify(message)), n, key);
  const out = new Uint8Array(n.length + box.length);
  out.set(n);
  out.set(box, n.length);
  return toBase64(out);
}

export function open(payload: string, key: Uint8Array): Result<unknown, OpenErrorCode> {
  const bytes = typeof payload === 'string' ? fromBase64(payload) : null;
  if (!bytes) return err('bad-base64', 'The payload is not standard padded base64.');
  if (bytes.length < NONCE_BYTES + BOX_OVERHEAD_BYTES) {
    return err('too-short', 'The payload is shorter than a nonce and an authentication tag.');
  }
  const plain = nacl.secretbox.open(
    bytes.subarray(NONCE_BYTES),
    bytes.subarray(0, NONCE_BYTES),
    key,
  );
  if (!plain) return err('auth-failed', 'The payload does not authenticate with this key.');
  const text = utf8Decode(plain);
  if (!text.ok) return err('not-json', 'The decrypted payload is not UTF-8 text.');
  try {
    return ok(JSON.parse(text.value) as unknown);
  } catch {
    return err('not-json', 'The decrypted payload is not JSON.');
  }
}
