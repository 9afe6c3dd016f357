import { open, parseMachineMessage, type MachineMessage } from '../../protocol/index.ts';
import { applyMessage, type Chosen, type MachineView, type TranscriptAsk } from './machine-view.ts';
import type { Outbox } from './outbox.ts';
import { E1_RESOLUTIONS, type QueuedLookup } from './reconcile.ts';
import type { makeReplyNotes } from './reply-notes.ts';

// One sealed frame from a machine, from ciphertext to the machine's next view: opened with the
// room key (D13), parsed and filtered by direction (D12), applied (machine-view.ts), and settled
// against the outbox (D10 confirmations, E1 drops, U2 reply outcomes).

export type Opened = { view: MachineView; message: MachineMessage | null };

/** Opens and parses; the view only changes for the D13 "re-pair needed" state. */
export function openFrame(
  view: MachineView,
  key: Uint8Array,
  payload: string,
  log: (line: string) => void,
): Opened {
  const room = view.roomId.slice(0, 8);
  const opened = open(payload, key);
  if (!opened.ok) {
    // D13: visible, at most once per episode, and the secret is never deleted by us.
    if (view.repairNeeded) return { view, message: null };
    log(`room ${room}: a frame failed to open (${opened.code}): re-pair needed`);
    return { view: { ...view, repairNeeded: true }, message: null };
  }
  const base = view.repairNeeded ? { ...view, repairNeeded: false } : view;
  const parsed = parseMachineMessage(opened.value);
  if (!parsed.ok) {
    // D12 and forward compatibility: ignored, logged by type only, never by content.
    const type = parsed.type ? ` ${parsed.type}` : '';
    log(`room ${room}: ignored a message (${parsed.code}${type})`);
    return { view: base, message: null };
  }
  return { view: base, message: parsed.value };
}

/**
 * SC1: a card the machine closed on this phone's decision keeps what was chosen (scope, edit,
 * message, a question's labels), read from the outbox before the close confirms the entry.
 */
function withChosen(base: MachineView, next: MachineView, outbox: Outbox): MachineView {
  let changed = false;
  const closed = next.closed.map((note) => {
    if (base.closed.includes(note) || note.undelivered) return note;
    const e = outbox.find(note.kind, base.roomId, note.id);
    if (!e) return note;
    let chosen: Chosen | undefined;
    const m = e.message;
    if (m.type === 'approval.respond' && m.decision === note.resolution) {
      const key = base.approvals[note.id]?.rule?.key;
      chosen = {
        scope: m.scope ?? 'once',
        ...(m.scope === 'always' && key !== undefined ? { ruleKey: key } : {}),
        ...(m.edited !== undefined ? { edited: m.edited } : {}),
        ...(m.message !== undefined ? { message: m.message } : {}),
      };
    } else if (m.type === 'question.respond' && note.resolution === 'phone') {
      const items = base.questions[note.id]?.items ?? [];
      const labels = m.answers.flatMap((a) => {
        const item = items.find((i) => i.id === a.itemId);
        const picked = a.optionIds.map((id) => item?.options.find((o) => o.id === id)?.label ?? id);
        return a.freeText !== undefined ? [...picked, a.freeText] : picked;
      });
      chosen = { labels };
    }
    if (!chosen) return note;
    changed = true;
    return { ...note, chosen };
  });
  return changed ? { ...next, closed } : next;
}

/** Applies a message and settles the outbox: confirmations, E1-dropped decisions, reply fates. */
export function settle(
  base: MachineView,
  message: MachineMessage,
  ctx: {
    at: number;
    ask?: TranscriptAsk;
    outbox: Outbox;
    replyNotes: ReturnType<typeof makeReplyNotes>;
  },
): MachineView {
  const roomId = base.roomId;
  const queued: QueuedLookup = (kind, id) => {
    const e = ctx.outbox.find(kind, roomId, id);
    if (!e) return undefined;
    return e.message.type === 'approval.respond' ? e.message.decision : 'answer';
  };
  const next = withChosen(
    base,
    applyMessage(base, message, ctx.at, {
      ...(ctx.ask ? { ask: ctx.ask } : {}),
      queued,
    }),
    ctx.outbox,
  );
  ctx.replyNotes.confirmed(ctx.outbox.confirm(roomId, message), message);
  // E1: a decision queued for a card that just closed without the machine's word is dropped
  // (its note says "not delivered"), never re-sent.
  for (const note of next.closed) {
    if (base.closed.includes(note)) break;
    const e1 =
      note.resolution === E1_RESOLUTIONS.gone || note.resolution === E1_RESOLUTIONS.restarted;
    const entry = e1 ? ctx.outbox.find(note.kind, roomId, note.id) : undefined;
    if (entry) ctx.outbox.remove(entry.requestId);
  }
  return next;
}
