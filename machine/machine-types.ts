import type {
  ApprovalResolution,
  BackoffProfile,
  CompactPushFields,
  MachineMessage,
  PhoneEntry,
  PushReceipt,
  QuestionAnswer,
  RuleEntry,
  QuestionItem,
  Session,
} from '../protocol/index.ts';
import type { AgentProvider } from './agent/agent.ts';
import type { Log } from './log.ts';
import type { OpenApproval, OpenQuestion } from './approvals/pending.ts';
import type { PresencePolicy } from './phones/presence-gate.ts';
import type { Timers } from './timers.ts';
import type { ToolHostProvider } from './links/tool-host.ts';
import type { StoredEntry } from './sessions/transcript.ts';

// The in-process machine's options and handle (createMachine in machine.ts).

export type MachineOptions = {
  relay: string;
  name: string;
  /** `--root` values as typed: resolved (absolute, ~-expanded, realpath) here. */
  roots: readonly string[];
  stateDir: string;
  appUrl: string;
  allowFullAccess?: boolean;
  /** E7: `--require-presence`; default `none`. */
  requirePresence?: PresencePolicy;
  rePair?: boolean;
  log?: Log;
  /** Clock and timers for every rule about time (coalescing, 60 s status, D11, expiry, sleep:). */
  timers?: Timers;
  /** Reconnect jitter. */
  random?: () => number;
  backoff?: BackoffProfile;
  /**
   * E10: the agents this machine offers, already checked (main.ts checks each `--agent`), the
   * default first; absent = the scripted agent only.
   */
  agents?: readonly AgentProvider[];
  /** Where tools run; default: the local host over the allowed roots. */
  toolHost?: ToolHostProvider;
  approvalTimeoutMs?: number;
  questionTimeoutMs?: number;
  /** How long a silent relay must stay silent after a push hint before the receipt is `sent`. */
  pushAnswerWindowMs?: number;
  /** E10: listen for Claude Code's hooks on `<stateDir>/hooks.sock` (default true). */
  hooks?: boolean;
  /** Tests: caps the store at this many pages, so a write fails as it would on a full disk. */
  storeMaxPages?: number;
  /** Sees every frame the machine sends, with the message inside (tests, the desk). */
  onSend?: (message: MachineMessage, push: CompactPushFields | undefined, frame: string) => void;
};

export type MachineEvents = {
  approvalOpened?(a: OpenApproval): void;
  approvalClosed?(a: OpenApproval, resolution: ApprovalResolution): void;
  questionOpened?(q: OpenQuestion): void;
  questionClosed?(q: OpenQuestion, resolution: string): void;
  rePairNeeded?(needed: boolean): void;
  relayError?(code: string, message: string): void;
  /** The room's last push outcome changed (it goes to the phone in machine.status). */
  pushReceipt?(receipt: PushReceipt): void;
  connected?(): void;
  /** E6: a revoke moved the machine to a new room; this is the pairing code to show now. */
  pairingChanged?(pairing: MachineHandle['pairing']): void;
};

export type MachineStatusView = {
  connected: boolean;
  phoneOnline: boolean;
  rePairNeeded: boolean;
  errorState: boolean;
  consecutiveFailures: number;
  /** The last push outcome of this room; absent until a push hint was answered or timed out. */
  pushReceipt?: PushReceipt;
};

export type LocalResult =
  | { ok: true }
  | {
      ok: false;
      code: 'not-pending' | 'bad-answer' | 'no-session' | 'no-rule' | 'no-phone';
      message: string;
    };

export type MachineHandle = {
  readonly pairing: {
    code: string;
    link: string;
    roomId: string;
    codeFile: string;
    created: boolean;
  };
  /** E1: this process's `machine.status.instance`. */
  readonly instance: string;
  /** E10: the socket Claude Code's hooks reach this machine on (null: not listening). */
  readonly hookSocket: string | null;
  readonly allowedRoots: readonly string[];
  status(): MachineStatusView;
  sessions(): Session[];
  transcript(sessionId: string): readonly StoredEntry[];
  pendingApprovals(): OpenApproval[];
  pendingQuestions(): OpenQuestion[];
  /** The desk: answers here close the phone's card with `local`. */
  answerApproval(approvalId: string, decision: 'allow' | 'deny'): LocalResult;
  answerQuestion(questionId: string, answers: QuestionAnswer[]): LocalResult;
  /** Scripted events: a local (not dispatched) session running a script or the demo. */
  startSession(prompt: string, cwd: string): string;
  /** Raises an approval on a session (a local one is made when none is named). */
  raiseApproval(fields: { sessionId?: string; title: string; detail: string; tool?: string }): {
    approvalId: string;
    outcome: Promise<ApprovalResolution>;
  };
  raiseQuestion(fields: { sessionId?: string; items: QuestionItem[] }): {
    questionId: string;
    outcome: Promise<string>;
  };
  disposeSession(sessionId: string): LocalResult;
  /** E2: every remembered approval (the desk's `rules`). */
  rules(): RuleEntry[];
  /** E2: the desk's `revoke <ruleId>`; the phone gets the new `rules`. */
  revokeRule(ruleId: string): LocalResult;
  /** E6: every phone that registered, revoked ones included (the desk's `phones`). */
  phones(): PhoneEntry[];
  /** E6: the desk's `revoke-phone <phoneId>`: the phone is cut off, the others move rooms. */
  revokePhone(phoneId: string): LocalResult;
  /** E9: the desk's `phones approve <phoneId>`. */
  approvePhone(phoneId: string): LocalResult;
  /** E9: the desk's `phones forget <phoneId>`. */
  forgetPhone(phoneId: string): LocalResult;
  /** Waits for the relay's hello-ok (bounded). */
  connected(timeoutMs?: number): Promise<void>;
  on(events: MachineEvents): () => void;
  close(): Promise<void>;
};

export class MachineStartError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
