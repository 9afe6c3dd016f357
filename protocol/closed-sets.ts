// Closed sets of wire v1, spelled exactly as on the wire. Each map's keys equal its values, so
// `SESSION_STATES.awaiting_approval` and the literal 'awaiting_approval' are the same thing and
// `isMember(SET, x)` narrows an unknown string.
export type Member<S> = S[keyof S];

export const isMember = <S extends Record<string, string>>(
  set: S,
  value: unknown,
): value is Member<S> =>
  typeof value === 'string' && Object.prototype.hasOwnProperty.call(set, value);

export const ROLES = { machine: 'machine', phone: 'phone' } as const;
export type Role = Member<typeof ROLES>;

/** E9: where a phone stands with a machine, as `phones` lists it. */
export const PHONE_STATES = {
  approved: 'approved',
  pending: 'pending',
  revoked: 'revoked',
} as const;
export type PhoneState = Member<typeof PHONE_STATES>;

/** Inner message types the machine sends and the phone acts on (D12). */
export const MACHINE_MESSAGE_TYPES = {
  'machine.status': 'machine.status',
  'session.snapshot': 'session.snapshot',
  'session.update': 'session.update',
  'approval.request': 'approval.request',
  'approval.closed': 'approval.closed',
  'dispatch.result': 'dispatch.result',
  'question.request': 'question.request',
  'question.closed': 'question.closed',
  'turn.final': 'turn.final',
  transcript: 'transcript',
  error: 'error',
  /** E2: the machine's remembered approvals (reply to rules.get, and after every change). */
  rules: 'rules',
  /** E6: the phones registered with the machine (reply to phone.register, and after every change). */
  phones: 'phones',
  /** E6: the new pairing secret, boxed to one remaining phone after a revoke. */
  'room.rotate': 'room.rotate',
  /** E9: proof, boxed by the machine key, that this phone was removed (it may delete S). */
  'phone.removed': 'phone.removed',
} as const;
export type MachineMessageType = Member<typeof MACHINE_MESSAGE_TYPES>;

/** Inner message types the phone sends and the machine acts on (D12). */
export const PHONE_MESSAGE_TYPES = {
  'sessions.get': 'sessions.get',
  'approval.respond': 'approval.respond',
  'dispatch.request': 'dispatch.request',
  'transcript.get': 'transcript.get',
  'session.message': 'session.message',
  'question.respond': 'question.respond',
  /** E2 */
  'rules.get': 'rules.get',
  /** E2 */
  'rule.revoke': 'rule.revoke',
  /** E4 */
  'session.interrupt': 'session.interrupt',
  /** E6 */
  'phone.register': 'phone.register',
  /** E6 */
  'phone.revoke': 'phone.revoke',
  /** E9: an approved phone lets a pending one in. */
  'phone.approve': 'phone.approve',
  /** E9: any phone message, proven to come from the phone that names itself. */
  'phone.sealed': 'phone.sealed',
} as const;
export type PhoneMessageType = Member<typeof PHONE_MESSAGE_TYPES>;

export const SESSION_STATES = {
  idle: 'idle',
  running: 'running',
  awaiting_approval: 'awaiting_approval',
  done: 'done',
  error: 'error',
} as const;
export type SessionState = Member<typeof SESSION_STATES>;

export const APPROVAL_RESOLUTIONS = {
  allow: 'allow',
  deny: 'deny',
  local: 'local',
  expired: 'expired',
  superseded: 'superseded',
} as const;
export type ApprovalResolution = Member<typeof APPROVAL_RESOLUTIONS>;

export const QUESTION_RESOLUTIONS = {
  phone: 'phone',
  local: 'local',
  cancelled: 'cancelled',
  expired: 'expired',
} as const;
export type QuestionResolution = Member<typeof QUESTION_RESOLUTIONS>;

export const DECISIONS = { allow: 'allow', deny: 'deny' } as const;
export type Decision = Member<typeof DECISIONS>;

/** Full access is never the default: absent means 'standard'. */
export const ACCESS_LEVELS = { standard: 'standard', full: 'full' } as const;
export type AccessLevel = Member<typeof ACCESS_LEVELS>;

/** E2: the scopes an `approval.respond` may carry; absent = `once`. */
export const APPROVAL_SCOPES = { once: 'once', session: 'session', always: 'always' } as const;
export type ApprovalScope = Member<typeof APPROVAL_SCOPES>;

/** E11: why a session can take no more messages (`Session.ended.reason`). */
export const SESSION_END_REASONS = {
  'machine-restarted': 'machine-restarted',
  stopped: 'stopped',
  failed: 'failed',
  finished: 'finished',
} as const;
export type SessionEndReason = Member<typeof SESSION_END_REASONS>;

/** E2: the scopes a machine can remember (and offer in `approval.request.rule.scopes`). */
export const RULE_SCOPES = { session: 'session', always: 'always' } as const;
export type RuleScope = Member<typeof RULE_SCOPES>;

/**
 * E11: why the machine classes an approval as risky (`approval.request.risk.reason`): no rule is
 * offered for it, and under `--require-presence risky` its allow needs presence. The parser also
 * reads codes it does not know (a newer machine's); the app shows those as "risky".
 */
export const RISK_REASONS = {
  'recursive-delete': 'recursive-delete',
  network: 'network',
  'outside-folder': 'outside-folder',
  'runs-another-program': 'runs-another-program',
  'not-simple': 'not-simple',
  'full-access': 'full-access',
  'force-push': 'force-push',
  other: 'other',
} as const;
export type RiskReason = Member<typeof RISK_REASONS>;

/** E7: `capabilities.presence` — which approvals need verified presence. Absent = none. */
export const PRESENCE_REQUIREMENTS = { risky: 'risky', all: 'all' } as const;
export type PresenceRequirement = Member<typeof PRESENCE_REQUIREMENTS>;

/**
 * E7: the COSE algorithms a registered credential may use. Numbers on the wire, so (unlike the
 * string sets above) the keys are the algorithms' names and the values are what is sent.
 */
export const WEBAUTHN_ALGS = { ES256: -7, EdDSA: -8, RS256: -257 } as const;
export type WebAuthnAlg = (typeof WEBAUTHN_ALGS)[keyof typeof WEBAUTHN_ALGS];

export const TRANSCRIPT_ROLES = { user: 'user', assistant: 'assistant' } as const;
export type TranscriptRole = Member<typeof TRANSCRIPT_ROLES>;

export const PUSH_KINDS = {
  approval: 'approval',
  question: 'question',
  done: 'done',
  error: 'error',
} as const;
export type PushKind = Member<typeof PUSH_KINDS>;

/** Every `reason` code of the spec, plus D11's `not-pending` and `stale-request`, plus E8's. */
export const REASON_CODES = {
  'dispatch-disabled': 'dispatch-disabled',
  'cwd-not-allowed': 'cwd-not-allowed',
  'prompt-too-long-chars': 'prompt-too-long-chars',
  'prompt-too-long-bytes': 'prompt-too-long-bytes',
  'message-too-long-chars': 'message-too-long-chars',
  'message-too-long-bytes': 'message-too-long-bytes',
  'no-remote-followup': 'no-remote-followup',
  'worktree-failed': 'worktree-failed',
  'dispatch-failed': 'dispatch-failed',
  'not-a-git-repo': 'not-a-git-repo',
  'no-assistant-text': 'no-assistant-text',
  'full-access-disabled': 'full-access-disabled',
  'full-access-unavailable': 'full-access-unavailable',
  'full-access-not-applied': 'full-access-not-applied',
  'bad-access-value': 'bad-access-value',
  'not-pending': 'not-pending',
  'stale-request': 'stale-request',
  /** E2: the respond's scope is not one the request offered (or not `once` on a deny). */
  'scope-not-offered': 'scope-not-offered',
  /** E3: an edit on a request that was not editable (or on a deny). */
  'not-editable': 'not-editable',
  /** E4: `session.interrupt` for a session that is not running. */
  'not-running': 'not-running',
  /** E7: an allow (or full-access dispatch) that needs presence came without an assertion. */
  'presence-required': 'presence-required',
  /** E7: the assertion did not verify (or was malformed). */
  'presence-invalid': 'presence-invalid',
  /** E6: the phone (or the credential) belongs to a revoked phone. */
  'phone-revoked': 'phone-revoked',
  /** E4: `turn.final` of a turn stopped by `session.interrupt`. */
  interrupted: 'interrupted',
  /** E11.7: `turn.final` of a turn the machine's own stop cut short (not a failure, not by you). */
  'machine-stopped': 'machine-stopped',
  /** E9: the machine acts only on messages proven to come from an approved phone. */
  'identity-required': 'identity-required',
  /** E9: the phone waits for the owner to approve it (or too many phones wait already). */
  'phone-pending': 'phone-pending',
  /** E10: `dispatch.request.agent` names an agent this machine does not offer. */
  'agent-unavailable': 'agent-unavailable',
} as const;
export type ReasonCode = Member<typeof REASON_CODES>;

/** Codes of the relay's `{"kind":"error"}` frame; `limit` is D3's addition. */
export const RELAY_ERROR_CODES = {
  'bad-hello': 'bad-hello',
  'bad-frame': 'bad-frame',
  'too-large': 'too-large',
  'push-disabled': 'push-disabled',
  'push-no-subscribers': 'push-no-subscribers',
  'push-failed': 'push-failed',
  limit: 'limit',
} as const;
export type RelayErrorCode = Member<typeof RELAY_ERROR_CODES>;
