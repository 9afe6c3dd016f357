import type {
  ApprovalRequest,
  QuestionRequest,
  Session,
  SessionState,
} from '../../protocol/index.ts';
import type { MachineView } from './view-types.ts';
import { sessionKey } from './stale-frames.ts';

// U1: what waits for the owner, derived in one place from one view, so the inbox list, the
// machine counts, the session chips, the cards and the app badge always agree. A session the
// machine reports as waiting whose card is not on this phone (offline after a reload: open cards
// are never cached, D8 re-sends them) is counted and listed as "unseen", with the reason.

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

/** A session's chip: its state, except where the cards on this phone say more. */
export type SessionChip = SessionState | 'question' | 'unseen';

export function chipOf(view: MachineView, session: Session): SessionChip {
  const id = session.sessionId;
  if (Object.values(view.approvals).some((a) => a.sessionId === id)) return 'awaiting_approval';
  if (Object.values(view.questions).some((q) => q.sessionId === id)) return 'question';
  if (session.state !== 'awaiting_approval') return session.state;
  // The card closed after the machine last described the session: the "waiting" state is only
  // older than the close (the next session.update will say "running"), nothing is unseen.
  const described = view.frames[sessionKey(id)] ?? -Infinity;
  const closedSince = view.closed.some((n) => n.sessionId === id && n.ts >= described);
  return closedSince ? 'running' : 'unseen';
}

/** Sessions the machine reports as waiting with no card on this phone. */
export function unseenSessions(view: MachineView): Session[] {
  return Object.values(view.sessions).filter((s) => chipOf(view, s) === 'unseen');
}

export type UnseenWait = { roomId: string; session: Session };
export type Waiting = { cards: OpenCard[]; unseen: UnseenWait[]; total: number };

export function waitingOf(views: readonly MachineView[]): Waiting {
  const cards = openCards(views);
  const unseen = views.flatMap((v) =>
    unseenSessions(v).map((session) => ({ roomId: v.roomId, session })),
  );
  return { cards, unseen, total: cards.length + unseen.length };
}

/** The machine row's counts: "waiting" is exactly what the inbox lists for this machine. */
export function sessionCounts(view: MachineView): { running: number; waiting: number } {
  let running = 0;
  for (const s of Object.values(view.sessions)) if (s.state === 'running') running += 1;
  const waiting = waitingOf([view]).total;
  return { running, waiting };
}
