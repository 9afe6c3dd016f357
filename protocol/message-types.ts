// The encrypted inner messages of wire v1 (+ v1.2 additions), as the parsers in messages.ts
// return them. Optional fields are absent rather than undefined.
import type {
  AccessLevel,
  ApprovalResolution,
  ApprovalScope,
  Decision,
  QuestionResolution,
  SessionState,
  TranscriptRole,
} from './closed-sets.ts';
import type {
  ApprovalRisk,
  AgentUsage,
  ApprovalRule,
  Capabilities,
  DecidedBy,
  Editable,
  PhoneEntry,
  PresenceAssertion,
  RuleEntry,
  WebAuthnCredential,
} from './extension-types.ts';
import type { PushReceipt } from './push-receipt.ts';

export type * from './extension-types.ts';

type Base<T extends string> = { v: 1; type: T; ts: number };

/** One entry of a session's tool trail; `count` > 1 when consecutive repeats were collapsed. */
export type SessionStep = { tool: string; count?: number };

export type Session = {
  sessionId: string;
  title: string;
  cwd: string;
  state: SessionState;
  /** Unix ms. */
  lastActivity: number;
  /** Started by this machine's dispatch. */
  dispatched: boolean;
  /** Permanent audit mark; absent = 'standard'. */
  access?: AccessLevel;
  /** The machine still holds the session; absent = too old to say (offer no reply box). */
  live?: boolean;
  /** Tool running right now; never arguments or output. */
  activity?: string;
  steps?: SessionStep[];
  /** The true total, sent only when earlier steps were dropped. */
  stepCount?: number;
  /** E11: the session can take no more messages, and why (SESSION_END_REASONS or other). */
  ended?: { reason: string };
  /** E10: the agent running the session (`claude`, `codex`, `mock`). */
  agent?: string;
  /** E10: the model the agent reported. */
  model?: string;
  /** E10: the agent's own token counts (and cost) for the session so far. */
  usage?: AgentUsage;
};

export type QuestionOption = { id: string; label: string; description?: string };
export type QuestionItem = {
  id: string;
  prompt: string;
  options: QuestionOption[];
  multiSelect: boolean;
  allowFreeText: boolean;
};
export type QuestionAnswer = { itemId: string; optionIds: string[]; freeText?: string };

export type TranscriptEntry = {
  seq: number;
  role: TranscriptRole;
  text: string;
  ts: number;
  truncated?: boolean;
};

/** `reason` is a stable code (known ones in REASON_CODES); unknown codes fall back to wording. */
type Reasoned = { reason?: string };
/** E6: the sending phone's id on every phone action; absent = an older phone. */
type FromPhone = { phoneId?: string };

// machine → phone
export type MachineStatus = Base<'machine.status'> & {
  machine: string;
  pluginVersion: string;
  dshVersion?: string;
  /** Absent = machine predates the field (free-text cwd); [] = dispatch is off. */
  allowedRoots?: string[];
  capabilities?: Capabilities;
  /** Additive: the last push outcome for this room (push-receipt.ts). Absent = none yet / old machine. */
  pushReceipt?: PushReceipt;
  /** E1: a random id made when the machine process starts; a change means it restarted. */
  instance?: string;
  /** E6: the machine's X25519 public key (standard base64 of 32 bytes); boxes `room.rotate`. */
  boxKey?: string;
};
/** E1: the approval and question ids still pending at the machine when the snapshot was built. */
export type OpenCards = { approvals: string[]; questions: string[] };
export type SessionSnapshot = Base<'session.snapshot'> & { sessions: Session[]; open?: OpenCards };
export type SessionUpdate = Base<'session.update'> & { session: Session };
export type ApprovalRequest = Base<'approval.request'> & {
  approvalId: string;
  sessionId: string;
  title: string;
  detail: string;
  createdAt: number;
  /** E1: unix ms when the machine will close it as `expired`; absent = it does not say. */
  expiresAt?: number;
  /** E2: the tool's name (`run`, `write`, `Bash`). Absent = a machine without E2. */
  tool?: string;
  /** E2: what a remembered decision would match and the scopes offered; absent = none. */
  rule?: ApprovalRule;
  /** E3: the machine can run an edited version of this. */
  editable?: Editable;
  /** E7: an allow needs verified presence. */
  presence?: true;
  /** E11: the machine classes this request as risky (it offers no rule), and says why. */
  risk?: ApprovalRisk;
};
export type ApprovalClosed = Base<'approval.closed'> & {
  approvalId: string;
  resolution: ApprovalResolution;
  /** E3: the machine ran the phone's edited version. */
  edited?: true;
  /** E6: the phone that decided. */
  by?: DecidedBy;
};
export type DispatchResult = Base<'dispatch.result'> &
  Reasoned & { requestId: string; ok: boolean; sessionId?: string; error?: string; note?: string };
export type QuestionRequest = Base<'question.request'> & {
  questionId: string;
  sessionId: string;
  items: QuestionItem[];
  createdAt: number;
  /** E1: unix ms when the machine will close it as `expired`; absent = it does not say. */
  expiresAt?: number;
};
export type QuestionClosed = Base<'question.closed'> & {
  questionId: string;
  resolution: QuestionResolution;
  /** E6: the phone that answered. */
  by?: DecidedBy;
};
export type TurnFinal = Base<'turn.final'> &
  Reasoned & { sessionId: string; ok: boolean; summary: string };
export type Transcript = Base<'transcript'> &
  Reasoned & { requestId: string; sessionId: string; entries: TranscriptEntry[]; more?: boolean };
export type ErrorMessage = Base<'error'> &
  Reasoned & { message: string; context?: string; sessionId?: string };

/** E2: every remembered approval of this machine; the reply to `rules.get` and sent on change. */
export type Rules = Base<'rules'> & { requestId?: string; rules: RuleEntry[] };
/** E6: every phone registered with this machine; the reply to `phone.register` and on change. */
export type Phones = Base<'phones'> & { requestId?: string; phones: PhoneEntry[] };
/** E6: the new pairing secret for one phone, `box` = base64(nonce ‖ nacl.box(…)) (rotate-box.ts). */
export type RoomRotate = Base<'room.rotate'> & { phoneId: string; box: string };
/** E9: this phone was removed; `box` proves the machine said so (identity.ts). */
export type PhoneRemoved = Base<'phone.removed'> & { phoneId: string; box: string };

export type MachineMessage =
  | MachineStatus
  | SessionSnapshot
  | SessionUpdate
  | ApprovalRequest
  | ApprovalClosed
  | DispatchResult
  | QuestionRequest
  | QuestionClosed
  | TurnFinal
  | Transcript
  | ErrorMessage
  | Rules
  | Phones
  | RoomRotate
  | PhoneRemoved;

// phone → machine
export type SessionsGet = Base<'sessions.get'> & FromPhone & { requestId?: string };
export type ApprovalRespond = Base<'approval.respond'> &
  FromPhone & {
    requestId: string;
    approvalId: string;
    decision: Decision;
    /** E2: absent = `once`; anything but `once` only with `allow` and only if offered. */
    scope?: ApprovalScope;
    /** E3: with `allow` only: run exactly this instead of `editable.value`. */
    edited?: string;
    /** E7: the assertion over `presenceChallengeText` (presence.ts). */
    presence?: PresenceAssertion;
    /** E11: with `deny` only: what the owner tells the agent (≤ MAX_DENY_MESSAGE_CHARS). */
    message?: string;
  };
export type DispatchRequest = Base<'dispatch.request'> &
  FromPhone & {
    requestId: string;
    prompt: string;
    cwd?: string;
    worktree: boolean;
    /** Never defaults to 'full'; absent = 'standard'. */
    access?: AccessLevel;
    /** E7: the assertion over `dispatchChallengeText` (needed for `access: 'full'`). */
    presence?: PresenceAssertion;
    /** E10: which of `capabilities.agents` runs it; absent = the machine's default. */
    agent?: string;
  };
export type TranscriptGet = Base<'transcript.get'> &
  FromPhone & {
    requestId: string;
    sessionId: string;
    /** Entries with seq strictly less than this; absent = the newest page. */
    before?: number;
  };
export type SessionMessage = Base<'session.message'> &
  FromPhone & {
    requestId: string;
    sessionId: string;
    text: string;
  };
export type QuestionRespond = Base<'question.respond'> &
  FromPhone & {
    requestId: string;
    questionId: string;
    answers: QuestionAnswer[];
  };

/** E2 */
export type RulesGet = Base<'rules.get'> & FromPhone & { requestId: string };
/** E2 */
export type RuleRevoke = Base<'rule.revoke'> & FromPhone & { requestId: string; ruleId: string };
/** E4 */
export type SessionInterrupt = Base<'session.interrupt'> &
  FromPhone & { requestId: string; sessionId: string };
/** E6: sent after every `hello-ok` (idempotent); `phoneId` is the sender. */
export type PhoneRegister = Base<'phone.register'> & {
  requestId: string;
  phoneId: string;
  name: string;
  /** X25519 public key, standard base64 of 32 bytes. */
  boxKey: string;
  /** E7 */
  webauthn?: WebAuthnCredential;
};
/** E6: `phoneId` is the phone to revoke (not the sender). */
export type PhoneRevoke = Base<'phone.revoke'> & {
  requestId: string;
  phoneId: string;
  /** E9: the assertion over phoneAuthorityChallengeText, under `risky`/`all`. */
  presence?: PresenceAssertion;
};
/** E9: `phoneId` is the pending phone to let in (not the sender). */
export type PhoneApprove = Base<'phone.approve'> & {
  requestId: string;
  phoneId: string;
  presence?: PresenceAssertion;
};
/**
 * E9: `message` is the JSON text of one other phone message; `box` proves the phone `phoneId`
 * sent exactly that text (identity.ts). The outer `ts` is the sender's clock, like any message.
 */
export type PhoneSealed = Base<'phone.sealed'> & { phoneId: string; message: string; box: string };

export type PhoneMessage =
  | SessionsGet
  | ApprovalRespond
  | DispatchRequest
  | TranscriptGet
  | SessionMessage
  | QuestionRespond
  | RulesGet
  | RuleRevoke
  | SessionInterrupt
  | PhoneRegister
  | PhoneRevoke
  | PhoneApprove
  | PhoneSealed;
