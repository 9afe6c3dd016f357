// E7: the text a WebAuthn assertion signs for a decision. The challenge is SHA-256 of its UTF-8
// bytes; each side hashes with its own platform (WebCrypto `crypto.subtle.digest('SHA-256', …)` in
// the page, `node:crypto` in the machine) — tweetnacl has SHA-512 only and WebAuthn exists only
// where WebCrypto does (docs/protocol.md, E7). protocol/vectors/presence.json pins text and hash.
import type { AccessLevel, Decision, PresenceRequirement } from './closed-sets.ts';

export const PRESENCE_CHALLENGE_PREFIX = 'dsh-dispatch/decision';

// A line break (or any control character) inside a field could make two different decisions
// read as the same text; such a field is refused rather than signed.
const SAFE_FIELD = /^[^\u0000-\u001f\u007f-\u009f]+$/;
const safe = (s: unknown): s is string => typeof s === 'string' && SAFE_FIELD.test(s);
const safeTs = (ts: unknown): ts is number =>
  typeof ts === 'number' && Number.isSafeInteger(ts) && ts >= 0;

/**
 * `dsh-dispatch/decision\n<approvalId>\n<allow|deny>\n<requestId>\n<ts>`, where `ts` is the
 * `approval.respond`'s own `ts` in decimal. Null when a field cannot be written unambiguously
 * (empty, a control character, a ts that is not a non-negative safe integer, an unknown decision):
 * the machine answers that with `presence-invalid`.
 */
export function decisionChallengeText(
  approvalId: string,
  decision: Decision,
  requestId: string,
  ts: number,
): string | null {
  if (!safe(approvalId) || !safe(requestId) || !safeTs(ts)) return null;
  if (decision !== 'allow' && decision !== 'deny') return null;
  return `${PRESENCE_CHALLENGE_PREFIX}\n${approvalId}\n${decision}\n${requestId}\n${ts}`;
}

/** `dsh-dispatch/decision\ndispatch\nfull\n<requestId>\n<ts>` for a full-access dispatch. */
export function dispatchChallengeText(requestId: string, ts: number): string | null {
  if (!safe(requestId) || !safeTs(ts)) return null;
  return `${PRESENCE_CHALLENGE_PREFIX}\ndispatch\nfull\n${requestId}\n${ts}`;
}

/** E7: a dispatch needs presence only with `access: 'full'`, and only under a presence policy. */
export const dispatchNeedsPresence = (
  policy: PresenceRequirement | undefined,
  access: AccessLevel | undefined,
): boolean => policy !== undefined && access === 'full';
