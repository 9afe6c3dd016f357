import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import {
  WEBAUTHN_ALGS,
  type PresenceAssertion,
  type WebAuthnAlg,
  type WebAuthnCredential,
} from '../protocol/index.ts';

// A software authenticator for E7 tests: a real key pair made here (node:crypto), assertions
// built byte for byte as a browser and a platform authenticator would, with switches to break
// each part the machine checks.

export type AssertOptions = {
  up?: boolean;
  uv?: boolean;
  counter?: number;
  type?: string;
  origin?: string;
  rpId?: string;
  crossOrigin?: boolean;
  /** Sign with this key instead of the registered one. */
  key?: KeyObject;
};

export type SoftAuthenticator = {
  credential: WebAuthnCredential;
  privateKey: KeyObject;
  assert(text: string, o?: AssertOptions): PresenceAssertion;
};

const sha256 = (d: Uint8Array | string) => createHash('sha256').update(d).digest();

export function keyPairFor(alg: WebAuthnAlg) {
  switch (alg) {
    case WEBAUTHN_ALGS.ES256:
      return generateKeyPairSync('ec', { namedCurve: 'P-256' });
    case WEBAUTHN_ALGS.EdDSA:
      return generateKeyPairSync('ed25519');
    case WEBAUTHN_ALGS.RS256:
      return generateKeyPairSync('rsa', { modulusLength: 2048 });
  }
}

export function makeSoftAuthenticator(
  o: { alg?: WebAuthnAlg; rpId?: string; origin?: string } = {},
): SoftAuthenticator {
  const alg = o.alg ?? WEBAUTHN_ALGS.ES256;
  const rpId = o.rpId ?? 'localhost';
  const origin = o.origin ?? 'http://localhost:4173';
  const { publicKey, privateKey } = keyPairFor(alg);
  const credential: WebAuthnCredential = {
    credentialId: randomBytes(16).toString('base64url'),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    alg,
    rpId,
    origin,
  };
  let counter = 0;
  return {
    credential,
    privateKey,
    assert(text, a = {}) {
      const flags = (a.up === false ? 0 : 0x01) | (a.uv === false ? 0 : 0x04);
      const count = Buffer.alloc(4);
      count.writeUInt32BE(a.counter ?? ++counter);
      const auth = Buffer.concat([sha256(a.rpId ?? rpId), Buffer.from([flags]), count]);
      const client = Buffer.from(
        JSON.stringify({
          type: a.type ?? 'webauthn.get',
          challenge: sha256(text).toString('base64url'),
          origin: a.origin ?? origin,
          crossOrigin: a.crossOrigin ?? false,
        }),
      );
      const data = Buffer.concat([auth, sha256(client)]);
      const key = a.key ?? privateKey;
      const signature =
        alg === WEBAUTHN_ALGS.EdDSA
          ? sign(null, data, key)
          : alg === WEBAUTHN_ALGS.ES256
            ? sign('sha256', data, { key, dsaEncoding: 'der' })
            : sign('sha256', data, key);
      return {
        credentialId: credential.credentialId,
        authenticatorData: auth.toString('base64url'),
        clientDataJSON: client.toString('base64url'),
        signature: signature.toString('base64url'),
      };
    },
  };
}
