import { Buffer } from 'node:buffer';
import { createPublicKey, sign, type KeyObject } from 'node:crypto';
import { ED25519_PUBLIC_KEY_BYTES } from './constants.ts';
import { buildHelloSignaturePayload, type HelloSignatureFields } from './hello-payload.ts';

// A raw Ed25519 public key is wrapped as SPKI DER so node:crypto can use it: this fixed 12-byte
// prefix is the DER of SEQUENCE { AlgorithmIdentifier id-Ed25519, BIT STRING (32 bytes) }.
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** Raw 32 bytes → KeyObject; throws if the bytes are not a valid Ed25519 public key. */
export const ed25519PublicKeyFromRaw = (raw: Uint8Array): KeyObject => {
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES) {
    throw new Error(`device-wire: an Ed25519 public key is 32 bytes (got ${raw.length})`);
  }
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(raw)]),
    format: 'der',
    type: 'spki',
  });
};

/** KeyObject (public, or private: its public half) → the raw 32 bytes that enrollment uploads. */
export const rawEd25519PublicKey = (key: KeyObject): Buffer => {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const der = pub.export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - ED25519_PUBLIC_KEY_BYTES);
};

/** Signs exactly the §1.3 payload and returns `hello.signatureB64`. Signs nothing else. */
export const signHello = (privateKey: KeyObject, fields: HelloSignatureFields): string =>
  sign(null, buildHelloSignaturePayload(fields), privateKey).toString('base64');
