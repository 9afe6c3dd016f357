import type { CompactPushFields, MachineMessage } from '../../protocol/index.ts';
import type { Log } from '../log.ts';
import { pushFor } from './push-hints.ts';
import type { Rooms } from '../links/rooms.ts';
import type { SendOptions } from '../links/send-pacer.ts';

// How the machine sends: to the current room, with a push hint while no phone is online (D9),
// keeping results and closes while the relay is away (re-sent after hello-ok) and dropping state
// a joining phone gets anyway.

/** Frames kept while the relay is away (sent after hello-ok); state is re-sent anyway. */
export const MAX_OUTBOX_FRAMES = 200;

/** State that a phone gets again when it joins, so it is neither kept nor sent to nobody. */
const RESENT_ON_JOIN = new Set<MachineMessage['type']>([
  'machine.status',
  'session.update',
  'rules',
  'session.snapshot',
]);

/**
 * E10.1: how the link queues a message — a card ahead of every other frame; a session's state
 * in the place of its older state still waiting (it carries the whole session).
 */
export function sendOptionsFor(message: MachineMessage): SendOptions {
  if (message.type === 'approval.request' || message.type === 'question.request')
    return { card: true };
  if (message.type === 'session.update') return { replaces: `s:${message.session.sessionId}` };
  return {};
}

export type Outbox = ReturnType<typeof makeOutbox>;

export function makeOutbox(o: {
  rooms: () => Rooms;
  log: Log;
  sessionTitle(sessionId: string): string | undefined;
  /** A push hint left for the relay (push-receipts.ts times its answer). */
  hintSent(): void;
  onSend?: (message: MachineMessage, push: CompactPushFields | undefined, frame: string) => void;
}) {
  /**
   * `push` marks those carrying a push hint. A frame sealed for a room the machine has left (E6)
   * is sealed again for the current one when it goes out (a room.rotate is dropped instead).
   */
  const kept: {
    frame: string;
    push: CompactPushFields | undefined;
    message: MachineMessage;
    roomId: string;
  }[] = [];
  let phoneOnline = false;

  return {
    phoneOnline: () => phoneOnline,
    setPhoneOnline(online: boolean): void {
      phoneOnline = online;
    },
    send(message: MachineMessage): void {
      // Nobody can receive a session update while no phone is online, and a phone that joins
      // gets the snapshot; the same for `rules` (E2): a phone that joins asks with rules.get.
      if (!phoneOnline && (message.type === 'session.update' || message.type === 'rules')) return;
      const push = phoneOnline ? undefined : pushFor(message, o.sessionTitle);
      const room = o.rooms().current();
      const frame = room.sealer.frame(message, push);
      if (frame === null) {
        o.log(
          'error',
          'frame-too-large',
          `${message.type} does not fit the 16 KiB envelope; not sent`,
        );
        return;
      }
      o.onSend?.(message, push, frame);
      if (room.link.send(frame, sendOptionsFor(message))) {
        if (push !== undefined) o.hintSent();
      } else if (!RESENT_ON_JOIN.has(message.type)) {
        kept.push({ frame, push, message, roomId: room.roomId });
        if (kept.length > MAX_OUTBOX_FRAMES) kept.shift();
      }
    },
    /** After hello-ok: what was kept goes out, in order. */
    flush(): void {
      const room = o.rooms().current();
      for (const k of kept.splice(0)) {
        // E6: a room.rotate only means something in the room it was sent for; a late phone
        // there asks again (retired-rooms.ts).
        if (k.roomId !== room.roomId && k.message.type === 'room.rotate') continue;
        const frame = k.roomId === room.roomId ? k.frame : room.sealer.frame(k.message, k.push);
        if (frame !== null && room.link.send(frame, sendOptionsFor(k.message)) && k.push)
          o.hintSent();
      }
    },
  };
}
