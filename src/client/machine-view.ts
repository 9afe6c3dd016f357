import type {
  ApprovalRequest,
  DispatchResult,
  ErrorMessage,
  MachineMessage,
  MachineStatus,
  QuestionRequest,
  Session,
  TranscriptEntry,
  TurnFinal,
} from '../../protocol/index.ts';

// Everything the phone knows about one paired machine, updated only by the pure functions below
// so the rules can be tested without a DOM or a socket.
export type ClosedNote = {
  kind: 'approval' | 'question';
  resolution: string;
  sessionId: string;
  title: string;
  at: number;
};
export type TranscriptView = { entries: TranscriptEntry[]; more: boolean; reason?: string };

export type MachineView = {
  roomId: string;
  name: string;
  relay: string;
  status: MachineStatus | null;
  statusAt: number | null;
  sessions: Record<string, Session>;
  approvals: Record<string, ApprovalRequest>;
  questions: Record<string, QuestionRequest>;
  closed: ClosedNote[];
  finals: Record<string, TurnFinal>;
  errors: (ErrorMessage & { at: number })[];
  transcripts: Record<string, TranscriptView>;
  dispatchResults: Record<string, DispatchResult>;
  machineOnline: boolean;
  machineSince: number | null;
  repairNeeded: boolean;
  /** When the last message from the machine arrived (offline reading shows "as of hh:mm"). */
  asOf: number | null;
  /** True while the view holds only what was saved on this phone, nothing live yet. */
  fromCache: boolean;
};

export const MAX_ERRORS_KEPT = 20;
export const MAX_CLOSED_NOTES_KEPT = 20;

export function emptyView(roomId: string, name: string, relay: string): MachineView {
  return {
    roomId,
    name,
    relay,
    status: null,
    statusAt: null,
    sessions: {},
    approvals: {},
    questions: {},
    closed: [],
    finals: {},
    errors: [],
    transcripts: {},
    dispatchResults: {},
    machineOnline: false,
    machineSince: null,
    repairNeeded: false,
    asOf: null,
    fromCache: false,
  };
}

const without = <T>(record: Record<string, T>, key: string): Record<string, T> => {
  const { [key]: _gone, ...rest } = record;
  return rest;
};

/** What a transcript reply was asking for, remembered by requestId. */
export type TranscriptAsk = { sessionId: string; before?: number };

export function applyMessage(
  view: MachineView,
  message: MachineMessage,
  at: number,
  ask?: TranscriptAsk,
): MachineView {
  const v: MachineView = { ...view, asOf: at, fromCache: false };
  switch (message.type) {
    case 'machine.status':
      return { ...v, status: message, statusAt: at };
    case 'session.snapshot':
      return {
        ...v,
        sessions: Object.fromEntries(message.sessions.map((s) => [s.sessionId, s])),
      };
    case 'session.update':
      return { ...v, sessions: { ...v.sessions, [message.session.sessionId]: message.session } };
    case 'approval.request':
      // D8: open requests are re-sent on every join; the id dedupes them.
      return { ...v, approvals: { ...v.approvals, [message.approvalId]: message } };
    case 'approval.closed': {
      const open = v.approvals[message.approvalId];
      if (!open) return v;
      const note: ClosedNote = {
        kind: 'approval',
        resolution: message.resolution,
        sessionId: open.sessionId,
        title: open.title,
        at,
      };
      return {
        ...v,
        approvals: without(v.approvals, message.approvalId),
        closed: [note, ...v.closed].slice(0, MAX_CLOSED_NOTES_KEPT),
      };
    }
    case 'question.request':
      return { ...v, questions: { ...v.questions, [message.questionId]: message } };
    case 'question.closed': {
      const open = v.questions[message.questionId];
      if (!open) return v;
      const note: ClosedNote = {
        kind: 'question',
        resolution: message.resolution,
        sessionId: open.sessionId,
        title: open.items[0]?.prompt ?? '',
        at,
      };
      return {
        ...v,
        questions: without(v.questions, message.questionId),
        closed: [note, ...v.closed].slice(0, MAX_CLOSED_NOTES_KEPT),
      };
    }
    case 'dispatch.result':
      return { ...v, dispatchResults: { ...v.dispatchResults, [message.requestId]: message } };
    case 'turn.final':
      return { ...v, finals: { ...v.finals, [message.sessionId]: message } };
    case 'transcript': {
      const sessionId = ask?.sessionId ?? message.sessionId;
      const previous = v.transcripts[sessionId];
      const older = ask?.before !== undefined && previous;
      const first = message.entries[0]?.seq;
      const last = previous?.entries.at(-1)?.seq;
      // A fresh newest page keeps the older pages already read when the two touch; with a gap
      // between them the old ones are dropped rather than shown as if continuous.
      const touches =
        !older && previous && first !== undefined && last !== undefined && first <= last + 1;
      const kept = touches ? previous.entries.filter((e) => e.seq < first) : [];
      const page: TranscriptView = older
        ? {
            entries: [...message.entries, ...previous.entries.filter((e) => e.seq >= ask.before!)],
            more: message.more === true,
            reason: message.reason,
          }
        : kept.length > 0
          ? { entries: [...kept, ...message.entries], more: previous!.more, reason: message.reason }
          : { entries: message.entries, more: message.more === true, reason: message.reason };
      return { ...v, transcripts: { ...v.transcripts, [sessionId]: page } };
    }
    case 'error':
      return { ...v, errors: [{ ...message, at }, ...v.errors].slice(0, MAX_ERRORS_KEPT) };
    default:
      return v;
  }
}

/** Sessions by last activity, newest first. */
export function sessionsByActivity(view: MachineView): Session[] {
  return Object.values(view.sessions).sort((a, b) => b.lastActivity - a.lastActivity);
}

export type OpenCard =
  | { kind: 'approval'; roomId: string; createdAt: number; approval: ApprovalRequest }
  | { kind: 'question'; roomId: string; createdAt: number; question: QuestionRequest };

/** Every open approval and question across machines, oldest first (the Inbox). */
export function openCards(views: readonly MachineView[], sessionId?: string): OpenCard[] {
  const cards: OpenCard[] = [];
  for (const view of views) {
    for (const approval of Object.values(view.approvals))
      if (!sessionId || approval.sessionId === sessionId)
        cards.push({
          kind: 'approval',
          roomId: view.roomId,
          createdAt: approval.createdAt,
          approval,
        });
    for (const question of Object.values(view.questions))
      if (!sessionId || question.sessionId === sessionId)
        cards.push({
          kind: 'question',
          roomId: view.roomId,
          createdAt: question.createdAt,
          question,
        });
  }
  return cards.sort((a, b) => a.createdAt - b.createdAt);
}

export function sessionCounts(view: MachineView): { running: number; waiting: number } {
  let running = 0;
  let waiting = 0;
  for (const s of Object.values(view.sessions)) {
    if (s.state === 'running') running += 1;
    if (s.state === 'awaiting_approval') waiting += 1;
  }
  return { running, waiting };
}
