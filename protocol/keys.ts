// Room id and message key from the pairing secret (spec "Crypto"). Both ends derive the same
// values; the relay sees only the room id, which reveals nothing about the key.
import nacl from 'tweetnacl';
import { toBase64Url, utf8Encode } from './bytes.ts';

export const SECRET_BYTES = 32;
export const KEY_BYTES = 32;
const ROOM_ID_BYTES = 16;

/** 32 bytes from the platform CSPRNG (crypto.getRandomValues, or Node's crypto). */
export const generateSecret = (): Uint8Array => nacl.randomBytes(SECRET_BYTES);

function hashWithLabel(label: string, secret: Uint8Array): Uint8Array {
  // A wrong-sized secret is a programming error (parsePairing only yields 32-byte secrets).
  if (!(secret instanceof Uint8Array) || secret.length !== SECRET_BYTES) {
    throw new RangeError(`a pairing secret is ${SECRET_BYTES} bytes`);
  }
  const prefix = utf8Encode(label);
  const input = new Uint8Array(prefix.length + secret.length);
  input.set(prefix);
  input.set(secret, prefix.length);
  return nacl.hash(input);
}

/** base64url(SHA-512("dsh-dispatch/room" ‖ secret)[0..16]): 22 characters. */
export const deriveRoomId = (secret: Uint8Array): string =>
  toBase64Url(hashWithLabel('dsh-dispatch/room', secret).subarray(0, ROOM_ID_BYTES));

/** SHA-512("dsh-dispatch/key" ‖ secret)[0..32]: the nacl.secretbox key. */
export const deriveKey = (secret: Uint8Array): Uint8Array =>
  hashWithLabel('dsh-dispatch/key', secret).slice(0, KEY_BYTES);

export const roomKeys = (secret: Uint8Array): { roomId: string; key: Uint8Array } => ({
  roomId: deriveRoomId(secret),
  key: deriveKey(secret),
});
