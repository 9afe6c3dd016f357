// The pieces extensions E2–E7 add to the inner messages (docs/protocol.md, "Extensions"). Each is
// optional on the wire: an older peer never sends it, and its absence means "not offered".
import type { PhoneState, PresenceRequirement, RuleScope, WebAuthnAlg } from './closed-sets.ts';

/**
 * v1.2 + E2/E3/E4/E6/E7. Absent boolean capability = false (an older machine); `presence` absent
 * = no decision needs verified presence. A non-boolean or unknown value is invalid, never read as
 * enabled.
 */
export type Capabilities = {
  fullAccessDispatch: boolean;
  questionForwarding: boolean;
  /** E2: remembered approvals (`rule` on requests, `scope` on responds, `rules.get`…). */
  approvalRules: boolean;
  /** E3: allow with changes (`editable` on requests, `edited` on responds). */
  approvalEdit: boolean;
  /** E4: `session.interrupt`. */
  interrupt: boolean;
  /** E6: per-phone identities (`phone.register`, `phones`, `phone.revoke`, `room.rotate`). */
  phones: boolean;
  /** E7: which decisions need verified presence. */
  presence?: PresenceRequirement;
  /** E10: the agents this machine can start, its default first; absent = the scripted one. */
  agents?: string[];
};

/** E10: an agent's own counts for a session so far. */
export type AgentUsage = { inputTokens: number; outputTokens: number; costUsd?: number };

/** E2: what a remembered decision for this request would match, and the scopes offered for it. */
export type ApprovalRule = {
  /** Human-readable pattern, e.g. `run: npm test`, `write: src/**`. */
  key: string;
  /** Unique; may be empty (nothing can be remembered for this request). */
  scopes: RuleScope[];
};

/** E2: one remembered approval, as listed by `rules`. */
export type RuleEntry = {
  ruleId: string;
  key: string;
  tool: string;
  scope: RuleScope;
  /** Set for `session` rules: the session it dies with. */
  sessionId?: string;
  /** Set for `always` rules: the allowed root it applies under, never another. */
  root?: string;
  /** Unix ms. */
  createdAt: number;
  /** How many requests it has allowed without asking. */
  uses: number;
};

/** E3: the part of a request the phone may change before allowing, e.g. the command line. */
export type Editable = { label: string; value: string };

/**
 * E11: why the machine classes this approval as risky. `reason` is a code: one of `RISK_REASONS`
 * from this machine, any other well-formed code from a newer one (shown as "risky").
 */
export type ApprovalRisk = { reason: string };

/** E7: a WebAuthn assertion, every field base64url as the browser gives it. */
export type PresenceAssertion = {
  credentialId: string;
  authenticatorData: string;
  clientDataJSON: string;
  signature: string;
};

/** E7: the platform credential a phone registers. */
export type WebAuthnCredential = {
  /** base64url, as in an assertion. */
  credentialId: string;
  /** SPKI DER, standard base64 (what `getPublicKey()` returns). */
  publicKey: string;
  alg: WebAuthnAlg;
  /** The app's host name (never an IP address). */
  rpId: string;
  /** The app's origin, `https://host[:port]` (or `http://localhost…`). */
  origin: string;
};

/** E6: one phone, as listed by `phones`. */
export type PhoneEntry = {
  phoneId: string;
  name: string;
  /** Unix ms. */
  firstSeen: number;
  /** Unix ms. */
  lastSeen: number;
  revoked: boolean;
  /** E7: a WebAuthn credential is registered for this phone. */
  presence: boolean;
  /** E9: approved, pending (waits for the owner) or revoked; absent = a machine without E9. */
  state?: PhoneState;
  /** E9: boxKeyFingerprint of the phone's box key, as the desk prints it. */
  fingerprint?: string;
};

/** E6: which phone decided, on `approval.closed` / `question.closed`. */
export type DecidedBy = { phoneId: string; name: string };
