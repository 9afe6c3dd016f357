import { createHash, createPublicKey, verify, constants, type KeyObject } from 'node:crypto';
import {
  WEBAUTHN_ALGS,
  type PresenceAssertion,
  type WebAuthnAlg,
  type WebAuthnCredential,
} from '../../protocol/index.ts';

// E7.3: one WebAuthn assertion checked against one registered credential, in Node's own crypto
// (the subset E7 needs: no attestation, no extensions, one credential per phone). Every failure
// has its own code for the log; the phone is told `presence-invalid` for all of them.

export const PRESENCE_CHECK_ERRORS = {
  'wrong-credential': 'wrong-credential',
  'bad-client-data': 'bad-client-data',
  'wrong-type': 'wrong-type',
  'wrong-challenge': 'wrong-challenge',
  'wrong-origin': 'wrong-origin',
  'cross-origin': 'cross-origin',
  'bad-authenticator-data': 'bad-authenticator-data',
  'wrong-rp-id': 'wrong-rp-id',
  'user-not-present': 'user-not-present',
  'user-not-verified': 'user-not-verified',
  'counter-not-rising': 'counter-not-rising',
  'bad-public-key': 'bad-public-key',
  'bad-signature': 'bad-signature',
} as const;
export type PresenceCheckError = keyof typeof PRESENCE_CHECK_ERRORS;

export type PresenceCheck =
  { ok: true; signCount: number } | { ok: false; code: PresenceCheckError; message: string };

/** authenticatorData: rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian) ‖ extensions… */
const AUTH_DATA_MIN_BYTES = 37;
const FLAG_UP = 0x01;
const FLAG_UV = 0x04;

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const b64url = (text: string) => Buffer.from(text, 'base64url');

/** base64url(SHA-256(UTF-8 text)): what `clientDataJSON.challenge` must be for this text. */
export const challengeFor = (text: string): string => sha256(text).toString('base64url');

const KEY_TYPE: Record<WebAuthnAlg, string> = {
  [WEBAUTHN_ALGS.ES256]: 'ec',
  [WEBAUTHN_ALGS.EdDSA]: 'ed25519',
  [WEBAUTHN_ALGS.RS256]: 'rsa',
};

function publicKey(credential: WebAuthnCredential): KeyObject | null {
  try {
    const key = createPublicKey({
      key: Buffer.from(credential.publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    });
    if (key.asymmetricKeyType !== KEY_TYPE[credential.alg]) return null;
    if (
      credential.alg === WEBAUTHN_ALGS.ES256 &&
      key.asymmetricKeyDetails?.namedCurve !== 'prime256v1'
    )
      return null;
    return key;
  } catch {
    return null;
  }
}

function signatureOk(alg: WebAuthnAlg, key: KeyObject, data: Buffer, sig: Buffer): boolean {
  try {
    switch (alg) {
      case WEBAUTHN_ALGS.ES256:
        return verify('sha256', data, { key, dsaEncoding: 'der' }, sig);
      case WEBAUTHN_ALGS.EdDSA:
        return verify(null, data, key, sig);
      case WEBAUTHN_ALGS.RS256:
        return verify('sha256', data, { key, padding: constants.RSA_PKCS1_PADDING }, sig);
    }
  } catch {
    return false;
  }
}

/**
 * Checks `assertion` for the decision whose challenge text is `text`, made with `credential`,
 * whose last accepted counter was `storedSignCount`. On success returns the new counter to keep.
 */
export function checkAssertion(
  assertion: PresenceAssertion,
  text: string,
  credential: WebAuthnCredential,
  storedSignCount: number,
): PresenceCheck {
  const fail = (code: PresenceCheckError, message: string): PresenceCheck => ({
    ok: false,
    code,
    message,
  });
  if (assertion.credentialId !== credential.credentialId) {
    return fail('wrong-credential', 'the assertion names another credential');
  }
  const clientBytes = b64url(assertion.clientDataJSON);
  let client: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(clientBytes),
    );
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
    client = parsed as Record<string, unknown>;
  } catch {
    return fail('bad-client-data', 'clientDataJSON is not a UTF-8 JSON object');
  }
  if (client.type !== 'webauthn.get')
    return fail('wrong-type', 'clientDataJSON.type is not webauthn.get');
  if (client.challenge !== challengeFor(text)) {
    return fail('wrong-challenge', 'the assertion signs another decision');
  }
  if (client.origin !== credential.origin) return fail('wrong-origin', 'made on another origin');
  if (client.crossOrigin === true) return fail('cross-origin', 'made in a cross-origin frame');
  const auth = b64url(assertion.authenticatorData);
  if (auth.length < AUTH_DATA_MIN_BYTES) {
    return fail('bad-authenticator-data', 'authenticatorData is too short');
  }
  if (!auth.subarray(0, 32).equals(sha256(credential.rpId))) {
    return fail('wrong-rp-id', 'made for another relying party');
  }
  const flags = auth[32]!;
  if ((flags & FLAG_UP) === 0) return fail('user-not-present', 'the user was not present (UP)');
  if ((flags & FLAG_UV) === 0) return fail('user-not-verified', 'the user was not verified (UV)');
  const signCount = auth.readUInt32BE(33);
  // A counter of zero on both sides means the authenticator keeps none (platform passkeys).
  if ((signCount !== 0 || storedSignCount !== 0) && signCount <= storedSignCount) {
    return fail(
      'counter-not-rising',
      'the signature counter did not rise (a cloned authenticator?)',
    );
  }
  const key = publicKey(credential);
  if (key === null)
    return fail('bad-public-key', 'the registered key does not match its algorithm');
  const signed = Buffer.concat([auth, sha256(clientBytes)]);
  if (!signatureOk(credential.alg, key, signed, b64url(assertion.signature))) {
    return fail('bad-signature', 'the signature does not verify');
  }
  return { ok: true, signCount };
}
