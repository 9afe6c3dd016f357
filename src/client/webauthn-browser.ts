import {
  toBase64,
  toBase64Url,
  fromBase64Url,
  WEBAUTHN_ALGS,
  type WebAuthnAlg,
} from '../../protocol/index.ts';
import { PRESENCE_FAILURES, PresenceError, type Authenticator } from './webauthn.ts';

// E7: the browser's WebAuthn behind `Authenticator`; loaded on first use (A8, lazyAuthenticator
// in webauthn.ts) since the first screen never asks for a fingerprint or face.

const bytes = (b: ArrayBuffer) => new Uint8Array(b);
// WebAuthn takes ArrayBuffer-backed views only.
const buffer = (b: Uint8Array): Uint8Array<ArrayBuffer> => new Uint8Array(b);
const ALGS = Object.values(WEBAUTHN_ALGS) as number[];

/** The browser's platform authenticator; RP ID = this page's host name (never an IP). */
export function makeBrowserAuthenticator(location: { hostname: string; origin: string }) {
  const api = () =>
    typeof PublicKeyCredential === 'function' && navigator.credentials ? PublicKeyCredential : null;
  const fail = (e: unknown): never => {
    if (e instanceof PresenceError) throw e;
    const name = (e as Error | null)?.name;
    if (name === 'NotSupportedError' || name === 'SecurityError')
      throw new PresenceError(PRESENCE_FAILURES.unavailable, String((e as Error).message));
    throw new PresenceError(PRESENCE_FAILURES.cancelled, String((e as Error | null)?.message));
  };
  const authenticator: Authenticator = {
    async available() {
      const pkc = api();
      if (!pkc) return false;
      try {
        return await pkc.isUserVerifyingPlatformAuthenticatorAvailable();
      } catch {
        return false;
      }
    },
    async create({ phoneId, name }) {
      if (!(await authenticator.available()))
        throw new PresenceError(PRESENCE_FAILURES.unavailable, 'No platform authenticator.');
      const created = await navigator.credentials
        .create({
          publicKey: {
            rp: { id: location.hostname, name: 'dsh-dispatch' },
            user: { id: new TextEncoder().encode(phoneId), name, displayName: name },
            challenge: crypto.getRandomValues(new Uint8Array(32)),
            pubKeyCredParams: ALGS.map((alg) => ({ type: 'public-key' as const, alg })),
            authenticatorSelection: {
              authenticatorAttachment: 'platform',
              userVerification: 'required',
              residentKey: 'discouraged',
            },
            attestation: 'none',
          },
        })
        .catch(fail);
      const response = (created as PublicKeyCredential | null)?.response as
        AuthenticatorAttestationResponse | undefined;
      const spki = response?.getPublicKey?.() ?? null;
      const alg = response?.getPublicKeyAlgorithm?.();
      if (!created || !spki || alg === undefined || !ALGS.includes(alg))
        throw new PresenceError(PRESENCE_FAILURES.unusable, 'The key type is not supported.');
      return {
        credentialId: toBase64Url(bytes((created as PublicKeyCredential).rawId)),
        publicKey: toBase64(bytes(spki)),
        alg: alg as WebAuthnAlg,
        rpId: location.hostname,
        origin: location.origin,
      };
    },
    async assert(credential, challenge) {
      const id = fromBase64Url(credential.credentialId);
      if (!id) throw new PresenceError(PRESENCE_FAILURES.unusable, 'Stored credential damaged.');
      const got = await navigator.credentials
        .get({
          publicKey: {
            challenge: buffer(challenge),
            rpId: credential.rpId,
            allowCredentials: [{ type: 'public-key', id: buffer(id) }],
            // The machine refuses an assertion without the UV flag (presence-invalid), so the
            // authenticator's own answer travels and the machine's verdict is what the owner sees.
            userVerification: 'preferred',
          },
        })
        .catch(fail);
      const response = (got as PublicKeyCredential | null)?.response as
        AuthenticatorAssertionResponse | undefined;
      if (!got || !response)
        throw new PresenceError(PRESENCE_FAILURES.cancelled, 'No assertion came back.');
      return {
        credentialId: toBase64Url(bytes((got as PublicKeyCredential).rawId)),
        authenticatorData: toBase64Url(bytes(response.authenticatorData)),
        clientDataJSON: toBase64Url(bytes(response.clientDataJSON)),
        signature: toBase64Url(bytes(response.signature)),
      };
    },
  };
  return authenticator;
}
