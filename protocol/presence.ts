// E7 + E9: the text a WebAuthn assertion signs for a decision. The challenge is SHA-256 of its
// UTF-8 bytes (the page asks WebCrypto, the machine node:crypto; protocol/vectors/presence.json
// pins text and hash). E9 binds what the owner saw: the room, the approval's content as the
// machine sent it, the scope and the edited text; the same builder serves the page, the machine
// and the tests.
import type { AccessLevel, ApprovalScope, Decision, PresenceRequirement } from './closed-sets.ts';
import type { ApprovalRequest, DispatchRequest } from './message-types.ts';
import { sha256Hex } from './sha256.ts';

export const PRESENCE_CHALLENGE_PREFIX = 'dsh-dispatch/decision';

// A line break (or any control character) inside a field could make two different decisions
// read as the same text; such a field is refused rather than signed.
const SAFE_FIELD = /^[^\u0000-\u001f\u007f-\u009f]+$/;
const safe = (s: unknown): s is string => typeof s === 'string' && SAFE_FIELD.test(s);
const safeTs = (ts: unknown): ts is number =>
  typeof ts === 'number' && Number.isSafeInteger(ts) && ts >= 0;
const HEX_256 = /^[0-9a-f]{64}$/;

/**
 * E9: hex SHA-256 of what an approval card shows, as the machine sent it. The fields are hashed
 * as the UTF-8 of the JSON array `["approval", tool, title, detail, editable value]` (absent =
 * null) — a variant of "joined by \n" that stays unambiguous when a detail holds line breaks.
 */
export const approvalContentHash = (
  a: Pick<ApprovalRequest, 'tool' | 'title' | 'detail' | 'editable'>,
): string =>
  sha256Hex(
    JSON.stringify(['approval', a.tool ?? null, a.title, a.detail, a.editable?.value ?? null]),
  );

/** E9: hex SHA-256 of a dispatch as sent: `["dispatch", cwd, prompt, worktree, access]`. */
export const dispatchContentHash = (
  d: Pick<DispatchRequest, 'cwd' | 'prompt' | 'worktree' | 'access'>,
): string =>
  sha256Hex(
    JSON.stringify(['dispatch', d.cwd ?? null, d.prompt, d.worktree, d.access ?? 'standard']),
  );

/** E9: hex SHA-256 of the edited text (E3) a decision runs instead. */
export const editedHash = (edited: string): string => sha256Hex(edited);

function line(fields: readonly string[]): string {
  return [PRESENCE_CHALLENGE_PREFIX, ...fields].join('\n');
}

export type DecisionChallenge = {
  roomId: string;
  approvalId: string;
  decision: Decision;
  requestId: string;
  /** The `approval.respond`'s own `ts`. */
  ts: number;
  /** approvalContentHash of the request the card showed. */
  content: string;
  scope?: ApprovalScope;
  edited?: string;
};

/**
 * `dsh-dispatch/decision\n<roomId>\n<approvalId>\n<allow|deny>\n<requestId>\n<ts>\n<content>\n
 * <scope|->\n<edited hash|->`. Null when a field cannot be written unambiguously (empty, a
 * control character, a ts that is not a non-negative safe integer, an unknown decision, a content
 * hash that is not 64 hex digits): the machine answers that with `presence-invalid`.
 */
export function decisionChallengeText(c: DecisionChallenge): string | null {
  if (![c.roomId, c.approvalId, c.requestId].every(safe) || !safeTs(c.ts)) return null;
  if (c.decision !== 'allow' && c.decision !== 'deny') return null;
  if (!HEX_256.test(c.content)) return null;
  if (c.scope !== undefined && !safe(c.scope)) return null;
  const edited = c.edited === undefined ? '-' : editedHash(c.edited);
  return line([
    c.roomId,
    c.approvalId,
    c.decision,
    c.requestId,
    String(c.ts),
    c.content,
    c.scope ?? '-',
    edited,
  ]);
}

/**
 * `dsh-dispatch/decision\n<roomId>\ndispatch\nfull\n<requestId>\n<ts>\n<content>\n-\n-` for a
 * full-access dispatch, `content` = dispatchContentHash of the request.
 */
export function dispatchChallengeText(c: {
  roomId: string;
  requestId: string;
  ts: number;
  content: string;
}): string | null {
  if (!safe(c.roomId) || !safe(c.requestId) || !safeTs(c.ts) || !HEX_256.test(c.content)) {
    return null;
  }
  return line([c.roomId, 'dispatch', 'full', c.requestId, String(c.ts), c.content, '-', '-']);
}

/** E9: the actions over phones that need presence under `risky`/`all`. */
export const PHONE_AUTHORITY_ACTIONS = {
  'phone.approve': 'phone.approve',
  'phone.revoke': 'phone.revoke',
} as const;
export type PhoneAuthorityAction = keyof typeof PHONE_AUTHORITY_ACTIONS;

/** `dsh-dispatch/decision\n<roomId>\n<phone.approve|phone.revoke>\n<target>\n<requestId>\n<ts>\n-\n-\n-`. */
export function phoneAuthorityChallengeText(c: {
  roomId: string;
  action: PhoneAuthorityAction;
  target: string;
  requestId: string;
  ts: number;
}): string | null {
  if (![c.roomId, c.target, c.requestId].every(safe) || !safeTs(c.ts)) return null;
  if (c.action !== 'phone.approve' && c.action !== 'phone.revoke') return null;
  return line([c.roomId, c.action, c.target, c.requestId, String(c.ts), '-', '-', '-']);
}

/** E7: a dispatch needs presence only with `access: 'full'`, and only under a presence policy. */
export const dispatchNeedsPresence = (
  policy: PresenceRequirement | undefined,
  access: AccessLevel | undefined,
): boolean => policy !== undefined && access === 'full';
