// End-to-end encryption of inner messages: base64(nonce ‖ nacl.secretbox(JSON)). Opening never
// throws: every failure is a value with a code, so "decryption failed" is always visible.
import nacl from 'tweetnacl';
import {
  BOX_OVERHEAD_BYTES,
  NONCE_BYTES,
  openBoxed,
  sealBoxed,
  type OpenErrorCode,
} from './boxed.ts';
import type { Result } from './result.ts';

export { BOX_OVERHEAD_BYTES, NONCE_BYTES, OPEN_ERRORS, type OpenErrorCode } from './boxed.ts';

/** Length of the base64 payload that seals `plaintextBytes` bytes of JSON. */
export const sealedLength = (plaintextBytes: number): number =>
  4 * Math.ceil((NONCE_BYTES + BOX_OVERHEAD_BYTES + plaintextBytes) / 3);

/**
 * Seals `message` as JSON. The nonce is 24 fresh CSPRNG bytes; passing one exists only so that
 * known-answer vectors can be reproduced — never reuse a nonce with the same key.
 */
export const seal = (message: object, key: Uint8Array, nonce?: Uint8Array): string =>
  sealBoxed(message, (plain, n) => nacl.secretbox(plain, n, key), nonce);

export const open = (payload: string, key: Uint8Array): Result<unknown, OpenErrorCode> =>
  openBoxed(payload, (box, n) => nacl.secretbox.open(box, n, key));
