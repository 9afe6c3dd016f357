import type { MachineMessage } from '../../protocol/index.ts';
import { draftKeys, type Drafts } from './drafts.ts';
import type { OutboxEntry } from './outbox.ts';

// U2: what became of each reply and prompt once the outbox lets go of it. A reply confirmed by the
// machine (D10) is shown as Delivered; a refused one (an `error` pinned to its session) or one too
// old to re-send goes back into the reply box, with the reason right beside it. A dispatch that
// the machine accepted clears the New-session draft, unless the owner has typed on since.
export const MAX_REPLY_NOTES = 5;
export const REPLY_OUTCOMES = {
  delivered: 'delivered',
  refused: 'refused',
  expired: 'expired',
} as const;
export type ReplyOutcome = (typeof REPLY_OUTCOMES)[keyof typeof REPLY_OUTCOMES];
export type ReplyNote = {
  requestId: string;
  text: string;
  outcome: ReplyOutcome;
  reason?: string;
  message?: string;
  at: number;
};

export function makeReplyNotes(drafts: Drafts, now: () => number) {
  let notes: Record<string, ReplyNote[]> = {};
  const add = (key: string, note: ReplyNote) => {
    notes = { ...notes, [key]: [...(notes[key] ?? []), note].slice(-MAX_REPLY_NOTES) };
  };
  const textOf = (e: OutboxEntry) =>
    e.message.type === 'session.message' ? e.message.text : undefined;

  return {
    all: (): Readonly<Record<string, ReplyNote[]>> => notes,
    /** The outbox confirmed `done` with `message`. */
    confirmed(done: readonly OutboxEntry[], message: MachineMessage) {
      for (const e of done) {
        if (e.kind === 'dispatch' && e.message.type === 'dispatch.request') {
          const key = draftKeys.prompt(e.roomId);
          if (
            message.type === 'dispatch.result' &&
            message.ok &&
            drafts.get(key) === e.message.prompt
          )
            drafts.clear(key);
          continue;
        }
        const text = textOf(e);
        if (e.kind !== 'message' || text === undefined) continue;
        const key = draftKeys.reply(e.roomId, e.targetId);
        if (message.type === 'error') {
          drafts.restore(key, text);
          add(key, {
            requestId: e.requestId,
            text,
            outcome: REPLY_OUTCOMES.refused,
            ...(message.reason !== undefined ? { reason: message.reason } : {}),
            message: message.message,
            at: now(),
          });
        } else
          add(key, { requestId: e.requestId, text, outcome: REPLY_OUTCOMES.delivered, at: now() });
      }
    },
    /** An entry the outbox will never re-send (older than the machine's request window). */
    expired(e: OutboxEntry) {
      const text = textOf(e);
      if (e.kind !== 'message' || text === undefined) return;
      const key = draftKeys.reply(e.roomId, e.targetId);
      drafts.restore(key, text);
      add(key, { requestId: e.requestId, text, outcome: REPLY_OUTCOMES.expired, at: now() });
    },
    forgetRoom(roomId: string) {
      notes = Object.fromEntries(
        Object.entries(notes).filter(([k]) => !k.startsWith(`reply:${roomId}:`)),
      );
    },
  };
}
