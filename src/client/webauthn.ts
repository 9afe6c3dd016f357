import {
  approvalContentHash,
  decisionChallengeText,
  dispatchContentHash,
  phoneAuthorityChallengeText,
  type ApprovalScope,
  type PhoneAuthorityAction,
  dispatchChallengeText,
  toBase64,
  toBase64Url,
  fromBase64Url,
  WEBAUTHN_ALGS,
  type Decision,
  type PresenceAssertion,
  type WebAuthnAlg,
  type WebAuthnCredential,
} from '../../protocol/index.ts';
import { webauthnCredential } from '../../protocol/extension-parts.ts';
import type { Kv } from './kv.ts';

// E7: the phone's platform credential (fingerprint / face) and the assertions that prove the
// owner was present for a risky decision. The browser's WebAuthn sits behind `Authenticator` so
// the client's rules run in tests with a software one.

/** One credential per phone (all machines get the same one in `phone.register.webauthn`). */
export const PRESENCE_CREDENTIAL_KEY = 'presence-credential';

export const PRESENCE_FAILURES = {
  /** No user-verifying platform authenticator (or no WebAuthn at all) on this phone. */
  unavailable: 'presence-unavailable',
  /** The owner cancelled, or the check failed or timed out. */
  cancelled: 'presence-cancelled',
  /** The authenticator answered with something this app cannot send. */
  unusable: 'presence-unusable',
} as const;
export type PresenceFailure = (typeof PRESENCE_FAILURES)[keyof typeof PRESENCE_FAILURES];

export class PresenceError extends Error {
  constructor(
    readonly code: PresenceFailure,
    message: string,
  ) {
    super(message);
  }
}

export type Authenticator = {
  available(): Promise<boolean>;
  create(options: { phoneId: string; name: string }): Promise<WebAuthnCredential>;
  assert(credential: WebAuthnCredential, challenge: Uint8Array): Promise<PresenceAssertion>;
};

/** SHA-256 with the platform's WebCrypto (protocol/ has none by design, docs/protocol.md E7). */
export async function challengeOf(text: string): Promise<Uint8Array> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return new Uint8Array(digest);
}

/** E9: what the owner saw and chose, bound into the challenge with the room it was shown in. */
export type PresenceSubject =
  | {
      roomId: string;
      approvalId: string;
      decision: Decision;
      request: Parameters<typeof approvalContentHash>[0];
      scope?: ApprovalScope;
      edited?: string;
    }
  | { roomId: string; dispatch: Parameters<typeof dispatchContentHash>[0] }
  | { roomId: string; action: PhoneAuthorityAction; target: string };

/** The text an assertion signs for an approval decision or a full-access dispatch (E7, E9). */
export function presenceText(what: PresenceSubject, requestId: string, ts: number): string | null {
  if ('action' in what) {
    return phoneAuthorityChallengeText({
      roomId: what.roomId,
      action: what.action,
      target: what.target,
      requestId,
      ts,
    });
  }
  if ('dispatch' in what) {
    const content = dispatchContentHash(what.dispatch);
    return dispatchChallengeText({ roomId: what.roomId, requestId, ts, content });
  }
  return decisionChallengeText({
    roomId: what.roomId,
    approvalId: what.approvalId,
    decision: what.decision,
    requestId,
    ts,
    content: approvalContentHash(what.request),
    ...(what.scope !== undefined ? { scope: what.scope } : {}),
    ...(what.edited !== undefined ? { edited: what.edited } : {}),
  });
}

export async function loadCredential(kv: Kv): Promise<WebAuthnCredential | null> {
  const stored = await kv.get<unknown>(PRESENCE_CREDENTIAL_KEY);
  if (stored === undefined) return null;
  try {
    // Parse at the edge: a damaged record is dropped rather than sent to every machine.
    return webauthnCredential(stored);
  } catch {
    return null;
  }
}

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
