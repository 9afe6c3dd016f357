// The framing both kinds of NaCl box share on the wire: base64(nonce ‖ box(JSON)). Sealed inner
// messages use secretbox (seal.ts); E6's `room.rotate` uses nacl.box (rotate-box.ts). Opening
// never throws: every failure is a value with a code. Internal: index.ts exports it via seal.ts.
import nacl from 'tweetnacl';
import { fromBase64, toBase64, utf8Decode, utf8Encode } from './bytes.ts';
import { err, ok, type Result } from './result.ts';

// Literals, not nacl.secretbox.nonceLength: reading a property at load would be a side effect
// that keeps this module in every bundle (protocol/tree-shaking.test.ts).
export const NONCE_BYTES = 24;
/** Poly1305 tag added by secretbox (and box). */
export const BOX_OVERHEAD_BYTES = 16;

export const OPEN_ERRORS = {
  'bad-base64': 'bad-base64',
  'too-short': 'too-short',
  'auth-failed': 'auth-failed',
  'not-json': 'not-json',
} as const;
export type OpenErrorCode = keyof typeof OPEN_ERRORS;

type Boxer = (plain: Uint8Array, nonce: Uint8Array) => Uint8Array;
type Opener = (box: Uint8Array, nonce: Uint8Array) => Uint8Array | null;

/** The nonce is 24 fresh CSPRNG bytes unless one is given (known-answer vectors only). */
export function sealBoxed(message: object, box: Boxer, nonce?: Uint8Array): string {
  const n = nonce ?? nacl.randomBytes(NONCE_BYTES);
  if (n.length !== NONCE_BYTES) throw new RangeError(`a nonce is ${NONCE_BYTES} bytes`);
  const boxed = box(utf8Encode(JSON.stringify(message)), n);
  const out = new Uint8Array(n.length + boxed.length);
  out.set(n);
  out.set(boxed, n.length);
  return toBase64(out);
}

export function openBoxed(payload: string, open: Opener): Result<unknown, OpenErrorCode> {
  const bytes = typeof payload === 'string' ? fromBase64(payload) : null;
  if (!bytes) return err('bad-base64', 'The payload is not standard padded base64.');
  if (bytes.length < NONCE_BYTES + BOX_OVERHEAD_BYTES) {
    return err('too-short', 'The payload is shorter than a nonce and an authentication tag.');
  }
  const plain = open(bytes.subarray(NONCE_BYTES), bytes.subarray(0, NONCE_BYTES));
  if (!plain) return err('auth-failed', 'The payload does not authenticate with this key.');
  const text = utf8Decode(plain);
  if (!text.ok) return err('not-json', 'The decrypted payload is not UTF-8 text.');
  try {
    return ok(JSON.parse(text.value) as unknown);
  } catch {
    return err('not-json', 'The decrypted payload is not JSON.');
  }
}
