import type { DecidedBy, MachineStatus, SessionSnapshot } from '../../protocol/index.ts';
import { touch, without } from './bounded.ts';
import { headingOf } from './card-words.ts';
import type { ClosedNote, Ended, MachineView } from './view-types.ts';

// E1 on the phone: every card shown must still be pending at the machine.
// - A snapshot with `open` closes every card absent from it ("no longer pending on <machine>").
// - A new `machine.status.instance` closes every card of the old process ("<machine> restarted").
// - Without either field (an older plugin), a snapshot closes the cards of sessions that are
//   absent from it or not waiting.
// Only cards the phone received before the closing frame was built (card ts <= frame ts) are
// judged, so a replayed old snapshot cannot close a newer card. A card closed by this inference
// reopens only if the machine sends its request again afterwards (newer ts); a card the machine
// closed itself never reopens (ids are never reused, D11). A decision queued for a card that
// closes here is dropped and shown as "not delivered", never re-sent.

export const E1_RESOLUTIONS = { restarted: 'restarted', gone: 'gone' } as const;
export type E1Resolution = (typeof E1_RESOLUTIONS)[keyof typeof E1_RESOLUTIONS];

/** What this phone has queued (outbox, not yet confirmed) for a card, if anything. */
export type QueuedLookup = (
  kind: 'approval' | 'question',
  id: string,
) => ClosedNote['undelivered'] | undefined;

/** H10 bounds: ended card ids remembered (replay defence), notes shown, old instances. */
export const MAX_ENDED_KEPT = 256;
export const MAX_CLOSED_NOTES_KEPT = 20;
export const MAX_RETIRED_INSTANCES = 8;
const cardKey = (kind: 'approval' | 'question', id: string) =>
  `${kind === 'approval' ? 'a' : 'q'}:${id}`;

export function reopenAllowed(ended: Ended | undefined, requestTs: number): boolean {
  return ended === undefined || (ended.by === 'phone' && requestTs > ended.ts);
}

export function closeCard(
  v: MachineView,
  kind: 'approval' | 'question',
  id: string,
  resolution: string,
  how: { by: Ended['by']; ts: number; at: number; queued?: QueuedLookup; decidedBy?: DecidedBy },
): MachineView {
  const ended = touch(v.ended, cardKey(kind, id), { by: how.by, ts: how.ts }, MAX_ENDED_KEPT);
  const approval = kind === 'approval' ? v.approvals[id] : undefined;
  const question = kind === 'question' ? v.questions[id] : undefined;
  const open = approval ?? question;
  if (!open) return { ...v, ended };
  const undelivered = how.by === 'phone' ? how.queued?.(kind, id) : undefined;
  const heading = approval ? headingOf(approval) : undefined;
  const note: ClosedNote = {
    kind,
    id,
    resolution,
    sessionId: open.sessionId,
    title: approval ? approval.title : (question?.items[0]?.prompt ?? ''),
    at: how.at,
    ts: how.ts,
    askedTs: open.createdAt,
    ...(heading && 'command' in heading ? { command: heading.command } : {}),
    ...(undelivered ? { undelivered } : {}),
    ...(how.decidedBy ? { by: how.decidedBy } : {}),
  };
  return {
    ...v,
    approvals: approval ? without(v.approvals, id) : v.approvals,
    questions: question ? without(v.questions, id) : v.questions,
    closed: [note, ...v.closed].slice(0, MAX_CLOSED_NOTES_KEPT),
    ended,
  };
}

function closeWhere(
  v: MachineView,
  judge: (kind: 'approval' | 'question', id: string, sessionId: string) => boolean,
  resolution: E1Resolution,
  frameTs: number,
  at: number,
  queued: QueuedLookup,
): MachineView {
  let next = v;
  const how = { by: 'phone' as const, ts: frameTs, at, queued };
  for (const a of Object.values(v.approvals))
    if (a.ts <= frameTs && judge('approval', a.approvalId, a.sessionId))
      next = closeCard(next, 'approval', a.approvalId, resolution, how);
  for (const q of Object.values(v.questions))
    if (q.ts <= frameTs && judge('question', q.questionId, q.sessionId))
      next = closeCard(next, 'question', q.questionId, resolution, how);
  return next;
}

export function reconcileSnapshot(
  v: MachineView,
  snapshot: SessionSnapshot,
  at: number,
  queued: QueuedLookup,
): MachineView {
  const open = snapshot.open;
  if (open) {
    const approvals = new Set(open.approvals);
    const questions = new Set(open.questions);
    return closeWhere(
      v,
      (kind, id) => !(kind === 'approval' ? approvals : questions).has(id),
      E1_RESOLUTIONS.gone,
      snapshot.ts,
      at,
      queued,
    );
  }
  const waiting = new Set(
    snapshot.sessions.filter((s) => s.state === 'awaiting_approval').map((s) => s.sessionId),
  );
  return closeWhere(
    v,
    (_kind, _id, sessionId) => !waiting.has(sessionId),
    E1_RESOLUTIONS.gone,
    snapshot.ts,
    at,
    queued,
  );
}

export function reconcileInstance(
  v: MachineView,
  status: MachineStatus,
  at: number,
  queued: QueuedLookup,
): MachineView {
  const instance = status.instance;
  if (instance === undefined || instance === v.instance) return v;
  if (v.instance === null) return { ...v, instance };
  const closed = closeWhere(v, () => true, E1_RESOLUTIONS.restarted, status.ts, at, queued);
  return {
    ...closed,
    instance,
    retired: [v.instance, ...v.retired].slice(0, MAX_RETIRED_INSTANCES),
  };
}
