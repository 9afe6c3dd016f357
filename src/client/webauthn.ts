import {
  approvalContentHash,
  decisionChallengeText,
  dispatchContentHash,
  phoneAuthorityChallengeText,
  type ApprovalScope,
  type PhoneAuthorityAction,
  dispatchChallengeText,
  type Decision,
  type PresenceAssertion,
  type WebAuthnCredential,
} from '../../protocol/index.ts';
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
  // A8: the parser comes with the message parsers' lazy chunk; only a phone with a credential
  // waits for it, and start() waits for that chunk anyway (loadCrypto).
  const { webauthnCredential } = await import('../../protocol/extension-parts.ts');
  try {
    // Parse at the edge: a damaged record is dropped rather than sent to every machine.
    return webauthnCredential(stored);
  } catch {
    return null;
  }
}

/** A8: the browser's authenticator (webauthn-browser.ts) is a lazy chunk: every call is async
 * already, so the first one loads it and nothing on the first screen waits for it (E7). */
export function lazyAuthenticator(load: () => Promise<Authenticator>): Authenticator {
  let real: Promise<Authenticator> | null = null;
  const get = () => (real ??= load());
  return {
    available: async () => (await get()).available(),
    create: async (options) => (await get()).create(options),
    assert: async (credential, challenge) => (await get()).assert(credential, challenge),
  };
}
