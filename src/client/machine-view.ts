import { approvalContentHash, type MachineMessage, type Session } from '../../protocol/index.ts';
import { capRecord, without } from './bounded.ts';
import {
  closeCard,
  reconcileInstance,
  reconcileSnapshot,
  reopenAllowed,
  type QueuedLookup,
} from './reconcile.ts';
import { isStaleFrame, observeFrame } from './stale-frames.ts';
import { mergePage, type TranscriptView } from './transcript-merge.ts';
import type { MachineView, TranscriptAsk } from './view-types.ts';

export type { TranscriptView } from './transcript-merge.ts';
export type { Chosen, ClosedNote, Ended, MachineView, TranscriptAsk } from './view-types.ts';
export { openCards, sessionCounts, type OpenCard } from './waiting.ts';

// Everything the phone knows about one paired machine, updated only by the pure functions below
// so the rules can be tested without a DOM or a socket. Its types live in view-types.ts.

export const MAX_ERRORS_KEPT = 20;
export { MAX_CLOSED_NOTES_KEPT } from './reconcile.ts';
// H10 bounds on what one machine's view may hold (the offline cache mirrors them).
export const MAX_SESSIONS_KEPT = 200;
export const MAX_TRANSCRIPTS_KEPT = 12;
export const MAX_DISPATCH_RESULTS_KEPT = 20;

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
    instance: null,
    retired: [],
    frames: {},
    ended: {},
    rules: null,
    phones: null,
  };
}

export type ApplyContext = { ask?: TranscriptAsk; queued?: QueuedLookup };

/** Keeps the sessions with the newest activity, and the turn summaries of those only. */
function boundSessions(v: MachineView): MachineView {
  const list = Object.values(v.sessions);
  if (list.length <= MAX_SESSIONS_KEPT) return v;
  const kept = list.sort((a, b) => b.lastActivity - a.lastActivity).slice(0, MAX_SESSIONS_KEPT);
  const ids = new Set(kept.map((s) => s.sessionId));
  return {
    ...v,
    sessions: Object.fromEntries(kept.map((s) => [s.sessionId, s])),
    finals: Object.fromEntries(Object.entries(v.finals).filter(([id]) => ids.has(id))),
  };
}

function boundTranscripts(all: Record<string, TranscriptView>): Record<string, TranscriptView> {
  const entries = Object.entries(all);
  if (entries.length <= MAX_TRANSCRIPTS_KEPT) return all;
  entries.sort((a, b) => b[1].touchedAt - a[1].touchedAt);
  return Object.fromEntries(entries.slice(0, MAX_TRANSCRIPTS_KEPT));
}

export function applyMessage(
  view: MachineView,
  message: MachineMessage,
  at: number,
  ctx: ApplyContext = {},
): MachineView {
  // H10: a replayed frame far older than what this machine already said about the same thing.
  if (isStaleFrame(view.frames, message)) return view;
  const queued = ctx.queued ?? (() => undefined);
  const v: MachineView = {
    ...view,
    asOf: at,
    fromCache: false,
    frames: observeFrame(view.frames, message),
  };
  switch (message.type) {
    case 'machine.status': {
      if (message.instance !== undefined && v.retired.includes(message.instance)) return view;
      return { ...reconcileInstance(v, message, at, queued), status: message, statusAt: at };
    }
    case 'session.snapshot': {
      const withSessions = boundSessions({
        ...v,
        sessions: Object.fromEntries(message.sessions.map((s) => [s.sessionId, s])),
      });
      return reconcileSnapshot(withSessions, message, at, queued);
    }
    case 'session.update':
      return boundSessions({
        ...v,
        sessions: { ...v.sessions, [message.session.sessionId]: message.session },
      });
    case 'approval.request': {
      // D8: open requests are re-sent on every join; the id dedupes them.
      if (!reopenAllowed(v.ended[`a:${message.approvalId}`], message.ts)) return view;
      // E9: an id reused with other content (what a copied code could show) never replaces
      // what the card shows; the card refuses Allow and says why.
      const shown = v.approvals[message.approvalId];
      if (shown && approvalContentHash(shown) !== approvalContentHash(message)) {
        return { ...v, conflicts: { ...v.conflicts, [message.approvalId]: true } };
      }
      return {
        ...v,
        approvals: { ...v.approvals, [message.approvalId]: message },
        ended: without(v.ended, `a:${message.approvalId}`),
      };
    }
    case 'question.request':
      if (!reopenAllowed(v.ended[`q:${message.questionId}`], message.ts)) return view;
      return {
        ...v,
        questions: { ...v.questions, [message.questionId]: message },
        ended: without(v.ended, `q:${message.questionId}`),
      };
    case 'approval.closed':
      return closeCard(v, 'approval', message.approvalId, message.resolution, {
        by: 'machine',
        ts: message.ts,
        at,
        ...(message.by ? { decidedBy: message.by } : {}),
      });
    case 'question.closed':
      return closeCard(v, 'question', message.questionId, message.resolution, {
        by: 'machine',
        ts: message.ts,
        at,
        ...(message.by ? { decidedBy: message.by } : {}),
      });
    case 'dispatch.result':
      return {
        ...v,
        dispatchResults: capRecord(
          { ...v.dispatchResults, [message.requestId]: message },
          MAX_DISPATCH_RESULTS_KEPT,
        ),
      };
    case 'rules':
      // E2: the whole list, sent as the reply to rules.get and after every change.
      return { ...v, rules: message.rules };
    case 'phones':
      // E6: the whole list, sent as the reply to phone.register and after every change.
      return { ...v, phones: message.phones };
    case 'turn.final':
      return { ...v, finals: { ...v.finals, [message.sessionId]: message } };
    case 'transcript': {
      const sessionId = ctx.ask?.sessionId ?? message.sessionId;
      const page = mergePage(
        v.transcripts[sessionId],
        { entries: message.entries, more: message.more === true, reason: message.reason },
        ctx.ask?.before,
        at,
      );
      return { ...v, transcripts: boundTranscripts({ ...v.transcripts, [sessionId]: page }) };
    }
    case 'error': {
      // E9.9: a refusal because a phone still waits for approval is a state, not a fault: the
      // waiting banner says it once, and nothing red is left behind once the phone is let in.
      // A refused register (a fifth waiting phone) is kept: that phone is on no list, no banner.
      if (message.reason === 'phone-pending' && message.context !== 'phone.register') return v;
      const withError = {
        ...v,
        errors: [{ ...message, at }, ...v.errors].slice(0, MAX_ERRORS_KEPT),
      };
      // The machine says a card we still show is not pending (D11): it ends here, and a decision
      // queued for it is dropped with a note rather than re-sent.
      const id = message.reason === 'not-pending' ? message.context : undefined;
      if (id === undefined) return withError;
      const kind = v.approvals[id] ? 'approval' : v.questions[id] ? 'question' : null;
      if (kind === null) return withError;
      return closeCard(withError, kind, id, 'gone', { by: 'phone', ts: message.ts, at, queued });
    }
    default:
      return v;
  }
}

/** Sessions by last activity, newest first. */
export function sessionsByActivity(view: MachineView): Session[] {
  return Object.values(view.sessions).sort((a, b) => b.lastActivity - a.lastActivity);
}
