import type { Session } from '../../protocol/index.ts';
import type { MachineView } from './view-types.ts';
import { chipOf, type SessionChip } from './waiting.ts';

// SC5: the inbox lists the sessions of every machine — running, waiting and recent — not only
// what waits, newest first and bounded. A row's state never misleads (SC3): a turn the owner
// stopped (`turn.final` reason `interrupted`, E4) reads "Stopped by you" and a session with E11
// `ended` reads "Ended — <why>"; neither is ever shown as failed.

/** SC5: at most this many session rows in the inbox (the rest are on the machine screens). */
export const MAX_RECENT_SESSIONS = 20;

/** What a session row says: the chip (waiting.ts), or stopped / ended, which outrank it. */
export type SessionRowState = SessionChip | 'stopped' | 'ended';

/** Chips that mean a turn is under way or a card waits: these win over an older stop. */
const ACTIVE: ReadonlySet<SessionRowState> = new Set([
  'running',
  'awaiting_approval',
  'question',
  'unseen',
]);

export function sessionRowState(view: MachineView, session: Session): SessionRowState {
  if (session.ended) return 'ended';
  const chip = chipOf(view, session);
  if (ACTIVE.has(chip)) return chip;
  // The last turn.final of the session is kept per session (machine-view.ts); a later turn
  // replaces it, so an old stop never outlives a turn that ended otherwise.
  return view.finals[session.sessionId]?.reason === 'interrupted' ? 'stopped' : chip;
}

/**
 * SC3.3: what a row may claim while its machine is away (the machine left, the relay is out of
 * reach, or this phone is offline). A state that says a turn is under way now ("Running",
 * "Waiting for approval") is only the last thing the machine said: it is shown as that state
 * "as of" the last message from the machine (`view.asOf`), or as unknown when nothing says
 * when. States of a turn that is over (done, idle, error, stopped, ended) stand.
 */
export function lastKnown(
  view: Pick<MachineView, 'asOf'>,
  state: SessionRowState,
  away: boolean,
): { asOf: number | null } | null {
  return away && ACTIVE.has(state) ? { asOf: view.asOf } : null;
}

export type RecentSession = { view: MachineView; session: Session; state: SessionRowState };

/** Every machine's sessions, newest activity first, at most `limit`; `total` counts them all. */
export function recentSessions(
  views: readonly MachineView[],
  limit = MAX_RECENT_SESSIONS,
): { rows: RecentSession[]; total: number } {
  const all = views.flatMap((view) =>
    Object.values(view.sessions).map((session) => ({ view, session })),
  );
  all.sort(
    (a, b) =>
      b.session.lastActivity - a.session.lastActivity ||
      a.session.sessionId.localeCompare(b.session.sessionId),
  );
  const rows = all
    .slice(0, limit)
    .map(({ view, session }) => ({ view, session, state: sessionRowState(view, session) }));
  return { rows, total: all.length };
}
