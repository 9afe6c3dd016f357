// The encrypted inner messages of wire v1 (+ v1.2 additions), as the parsers in messages.ts
// return them. Optional fields are absent rather than undefined.
import type {
  AccessLevel,
  ApprovalResolution,
  Decision,
  QuestionResolution,
  SessionState,
  TranscriptRole,
} from './closed-sets.ts';
import type { PushReceipt } from './push-receipt.ts';

type Base<T extends string> = { v: 1; type: T; ts: number };

/** Absent capability (or absent `capabilities`) = false: an older machine (v0.1 plugin). */
export type Capabilities = { fullAccessDispatch: boolean; questionForwarding: boolean };

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
};
export type ApprovalClosed = Base<'approval.closed'> & {
  approvalId: string;
  resolution: ApprovalResolution;
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
};
export type TurnFinal = Base<'turn.final'> &
  Reasoned & { sessionId: string; ok: boolean; summary: string };
export type Transcript = Base<'transcript'> &
  Reasoned & { requestId: string; sessionId: string; entries: TranscriptEntry[]; more?: boolean };
export type ErrorMessage = Base<'error'> &
  Reasoned & { message: string; context?: string; sessionId?: string };

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
  | ErrorMessage;

// phone → machine
export type SessionsGet = Base<'sessions.get'> & { requestId?: string };
export type ApprovalRespond = Base<'approval.respond'> & {
  requestId: string;
  approvalId: string;
  decision: Decision;
};
export type DispatchRequest = Base<'dispatch.request'> & {
  requestId: string;
  prompt: string;
  cwd?: string;
  worktree: boolean;
  /** Never defaults to 'full'; absent = 'standard'. */
  access?: AccessLevel;
};
export type TranscriptGet = Base<'transcript.get'> & {
  requestId: string;
  sessionId: string;
  /** Entries with seq strictly less than this; absent = the newest page. */
  before?: number;
};
export type SessionMessage = Base<'session.message'> & {
  requestId: string;
  sessionId: string;
  text: string;
};
export type QuestionRespond = Base<'question.respond'> & {
  requestId: string;
  questionId: string;
  answers: QuestionAnswer[];
};

export type PhoneMessage =
  | SessionsGet
  | ApprovalRespond
  | DispatchRequest
  | TranscriptGet
  | SessionMessage
  | QuestionRespond;
