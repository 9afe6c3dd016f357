import { randomUUID } from 'node:crypto';
import type {
  ApprovalResolution,
  ApprovalRisk,
  ApprovalRule,
  Editable,
  QuestionAnswer,
  QuestionItem,
  QuestionResolution,
} from '../../protocol/index.ts';
import type { Timers, TimerHandle } from '../timers.ts';

// Open approvals and questions. Ids are fresh UUID v4s, never reused (D11). The first decision
// wins: once closed, an id is gone and later decisions change nothing. Nothing here ever allows
// or answers by itself: a timeout closes an approval as `expired` (the tool is not run) and a
// question as `expired` (the agent gets no answer).

export const DEFAULT_APPROVAL_TIMEOUT_MS = 30 * 60_000;
export const DEFAULT_QUESTION_TIMEOUT_MS = 30 * 60_000;

export type OpenApproval = {
  readonly approvalId: string;
  readonly sessionId: string;
  readonly title: string;
  readonly detail: string;
  readonly createdAt: number;
  /** E1: when the timeout will close it as `expired` (unix ms); the phone shows the time left. */
  readonly expiresAt: number;
  /** E2: the tool's name, and what a remembered decision would match (absent: nothing). */
  readonly tool: string;
  readonly rule?: ApprovalRule;
  /** E3: the command line the phone may change before allowing. */
  readonly editable?: Editable;
  /** E7: an allow needs verified presence (set by the machine's policy, never by the offer). */
  readonly presence?: true;
  /** E11: why the machine classes it as risky; set exactly when no rule is offered. */
  readonly risk?: ApprovalRisk;
};
/** E2/E3/E11: what the machine offers with an approval (approval-offer.ts). */
export type ApprovalExtras = Pick<OpenApproval, 'tool' | 'rule' | 'editable' | 'risk'>;
export type OpenQuestion = {
  readonly questionId: string;
  readonly sessionId: string;
  readonly items: readonly QuestionItem[];
  readonly createdAt: number;
  readonly expiresAt: number;
};

/** How an approval ended; `local` carries the desk's decision; `edited` what the phone changed. */
export type ApprovalOutcome = {
  resolution: ApprovalResolution;
  allowed: boolean;
  edited?: string;
  /** E11: what the owner told the agent with a deny. */
  message?: string;
};
export type QuestionOutcome =
  | { resolution: 'phone' | 'local'; answers: QuestionAnswer[] }
  | { resolution: 'cancelled' | 'expired' };

export type PendingEvents = {
  approvalOpened(a: OpenApproval): void;
  approvalClosed(a: OpenApproval, outcome: ApprovalOutcome): void;
  questionOpened(q: OpenQuestion): void;
  questionClosed(q: OpenQuestion, resolution: QuestionResolution): void;
};

export type Pending = ReturnType<typeof makePending>;

export function makePending(options: {
  timers: Timers;
  events: PendingEvents;
  approvalTimeoutMs?: number;
  questionTimeoutMs?: number;
  /** E7: whether an allow of this request needs verified presence. */
  needsPresence?: (extras: ApprovalExtras) => boolean;
}) {
  const { timers, events } = options;
  const approvals = new Map<
    string,
    { open: OpenApproval; settle: (o: ApprovalOutcome) => void; timer: TimerHandle }
  >();
  const questions = new Map<
    string,
    { open: OpenQuestion; settle: (o: QuestionOutcome) => void; timer: TimerHandle }
  >();

  function closeApproval(id: string, outcome: ApprovalOutcome): boolean {
    const a = approvals.get(id);
    if (a === undefined) return false;
    approvals.delete(id);
    timers.clearTimeout(a.timer);
    events.approvalClosed(a.open, outcome);
    a.settle(outcome);
    return true;
  }
  function closeQuestion(id: string, outcome: QuestionOutcome): boolean {
    const q = questions.get(id);
    if (q === undefined) return false;
    questions.delete(id);
    timers.clearTimeout(q.timer);
    events.questionClosed(q.open, outcome.resolution);
    q.settle(outcome);
    return true;
  }

  return {
    openApproval(
      sessionId: string,
      title: string,
      detail: string,
      extras: ApprovalExtras,
    ): { approval: OpenApproval; outcome: Promise<ApprovalOutcome> } {
      const timeoutMs = options.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
      const createdAt = timers.now();
      const approval: OpenApproval = {
        approvalId: randomUUID(),
        sessionId,
        title,
        detail,
        createdAt,
        expiresAt: createdAt + timeoutMs,
        ...extras,
        ...(options.needsPresence?.(extras) ? { presence: true as const } : {}),
      };
      let settle!: (o: ApprovalOutcome) => void;
      const outcome = new Promise<ApprovalOutcome>((r) => (settle = r));
      const timer = timers.setTimeout(
        () => closeApproval(approval.approvalId, { resolution: 'expired', allowed: false }),
        timeoutMs,
      );
      approvals.set(approval.approvalId, { open: approval, settle, timer });
      events.approvalOpened(approval);
      return { approval, outcome };
    },
    openQuestion(
      sessionId: string,
      items: QuestionItem[],
    ): { question: OpenQuestion; outcome: Promise<QuestionOutcome> } {
      const timeoutMs = options.questionTimeoutMs ?? DEFAULT_QUESTION_TIMEOUT_MS;
      const createdAt = timers.now();
      const question: OpenQuestion = {
        questionId: randomUUID(),
        sessionId,
        items,
        createdAt,
        expiresAt: createdAt + timeoutMs,
      };
      let settle!: (o: QuestionOutcome) => void;
      const outcome = new Promise<QuestionOutcome>((r) => (settle = r));
      const timer = timers.setTimeout(
        () => closeQuestion(question.questionId, { resolution: 'expired' }),
        timeoutMs,
      );
      questions.set(question.questionId, { open: question, settle, timer });
      events.questionOpened(question);
      return { question, outcome };
    },
    /**
     * Phone decision: resolution is the decision itself; `edited` (E3, allow only) is what runs.
     * False when not pending (D11).
     */
    decideFromPhone: (approvalId: string, allow: boolean, edited?: string, message?: string) =>
      closeApproval(approvalId, {
        resolution: allow ? 'allow' : 'deny',
        allowed: allow,
        ...(allow && edited !== undefined ? { edited } : {}),
        ...(!allow && message !== undefined ? { message } : {}),
      }),
    /** Desk decision: the phone's card closes with `local`. */
    decideLocally: (approvalId: string, allow: boolean) =>
      closeApproval(approvalId, { resolution: 'local', allowed: allow }),
    answer: (questionId: string, answers: QuestionAnswer[], by: 'phone' | 'local') =>
      closeQuestion(questionId, { resolution: by, answers }),
    /** E10: the agent withdrew its own request (it no longer waits for it): the card closes. */
    withdrawApproval: (approvalId: string) =>
      closeApproval(approvalId, { resolution: 'superseded', allowed: false }),
    withdrawQuestion: (questionId: string) =>
      closeQuestion(questionId, { resolution: 'cancelled' }),
    /** The session moved on (steered, stopped): its open asks end without a decision. */
    dropSession(sessionId: string): void {
      for (const a of [...approvals.values()]) {
        if (a.open.sessionId === sessionId)
          closeApproval(a.open.approvalId, { resolution: 'superseded', allowed: false });
      }
      for (const q of [...questions.values()]) {
        if (q.open.sessionId === sessionId)
          closeQuestion(q.open.questionId, { resolution: 'cancelled' });
      }
    },
    approval: (id: string): OpenApproval | undefined => approvals.get(id)?.open,
    question: (id: string): OpenQuestion | undefined => questions.get(id)?.open,
    openApprovals: (): OpenApproval[] => [...approvals.values()].map((a) => a.open),
    openQuestions: (): OpenQuestion[] => [...questions.values()].map((q) => q.open),
    /** Shutdown: nothing was decided, so approvals close as `superseded`, questions `cancelled`. */
    close(): void {
      for (const id of [...approvals.keys()])
        closeApproval(id, { resolution: 'superseded', allowed: false });
      for (const id of [...questions.keys()]) closeQuestion(id, { resolution: 'cancelled' });
    },
  };
}

export type AnswerCheck = { ok: true } | { ok: false; message: string };

/** A human's answer must name real items and options, and free text only where it is allowed. */
export function checkAnswers(
  items: readonly QuestionItem[],
  answers: readonly QuestionAnswer[],
): AnswerCheck {
  const seen = new Set<string>();
  for (const a of answers) {
    const item = items.find((i) => i.id === a.itemId);
    if (item === undefined) return { ok: false, message: `no item "${a.itemId}" in this question` };
    if (seen.has(a.itemId)) return { ok: false, message: `item "${a.itemId}" answered twice` };
    seen.add(a.itemId);
    for (const o of a.optionIds) {
      if (!item.options.some((opt) => opt.id === o))
        return { ok: false, message: `item "${a.itemId}" has no option "${o}"` };
    }
    if (!item.multiSelect && a.optionIds.length > 1)
      return { ok: false, message: `item "${a.itemId}" takes one option` };
    if (a.freeText !== undefined && !item.allowFreeText)
      return { ok: false, message: `item "${a.itemId}" takes no free text` };
    if (a.optionIds.length === 0 && (a.freeText ?? '').trim() === '')
      return { ok: false, message: `item "${a.itemId}" has no answer` };
  }
  const missing = items.find((i) => !seen.has(i.id));
  if (missing !== undefined) return { ok: false, message: `item "${missing.id}" is not answered` };
  return { ok: true };
}
