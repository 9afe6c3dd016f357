import type { Clock } from './clock.ts';
import type { ConnectionEvent } from './connection.ts';
import type { Decisions } from './decisions.ts';
import type { Identity } from './identity.ts';
import { openFrame, settle } from './incoming.ts';
import type { Outbox } from './outbox.ts';
import { letIn, removalOf } from './phones.ts';
import type { makeReplyNotes } from './reply-notes.ts';
import type { Room, RoomLink } from './room-link.ts';
import type { RoomMoves } from './room-moves.ts';
import type { ViewStore } from './view-store.ts';
import type { TranscriptAsk } from './view-types.ts';

// What arrives from a relay, routed: link status and notices, joins (D5/D7/E1: the snapshot is
// asked for, the outbox re-sent), the machine's presence, and every sealed frame of a room.
export function makeRoomEvents(options: {
  link: RoomLink;
  views: ViewStore;
  clock: Clock;
  outbox: Outbox;
  replyNotes: ReturnType<typeof makeReplyNotes>;
  decisions: Decisions;
  identity: Identity;
  moves: RoomMoves;
  /** Transcript requests by requestId (what each reply was asking for). */
  asks: Map<string, TranscriptAsk>;
  /** Called after every hello-ok for a room (the push client re-sends push-subscribe, D7). */
  onJoined?: (roomId: string) => unknown;
  now: () => number;
  log: (line: string) => void;
}) {
  const { link, views, clock, outbox, decisions, identity, moves, asks, now } = options;

  const onMessage = (room: Room, payload: string) => {
    const roomId = room.paired.roomId;
    const view = views.get(roomId);
    if (!view) return;
    const { view: base, message } = openFrame(view, room.key, payload, options.log);
    if (!message) {
      if (base !== view) views.set(roomId, base);
      return;
    }
    if (message.type === 'machine.status') clock.observe(roomId, message.ts);
    if (message.type === 'room.rotate') return void moves.follow(room, message);
    // E9: only the machine's boxed proof deletes the pairing; a bare claim is a notice.
    const removal = removalOf(room.paired, message);
    if (removal === 'removed') return void moves.removed(roomId);
    let ask: TranscriptAsk | undefined;
    if (message.type === 'transcript') {
      ask = asks.get(message.requestId);
      asks.delete(message.requestId);
    }
    const settled = settle(base, message, {
      at: now(),
      ...(ask ? { ask } : {}),
      outbox,
      replyNotes: options.replyNotes,
    });
    views.set(
      roomId,
      removal === 'claimed' ? { ...settled, unprovenRemoval: now() } : settled,
      true,
    );
    // E9.9: let in at last. The machine refused this phone's reads while it waited; a fresh
    // snapshot now (and anything the outbox still holds for the room), not at the next join.
    if (message.type === 'phones' && letIn(view, settled, room.paired.phone?.phoneId)) {
      decisions.awaitSnapshot(roomId);
      decisions.send(roomId, { type: 'sessions.get' });
      decisions.resend(roomId);
    }
    if (message.type === 'session.snapshot' && decisions.snapshotCame(roomId))
      decisions.resend(roomId);
    if (message.type === 'machine.status') identity.afterStatus(room);
  };

  return (relay: string, event: ConnectionEvent) => {
    switch (event.kind) {
      case 'status':
        link.setLink(relay, event.status);
        return;
      case 'joined': {
        const view = views.get(event.room);
        if (!view) return;
        const machineOnline = event.peers.machine > 0;
        if (machineOnline !== view.machineOnline || view.machineSince === null)
          views.set(event.room, { ...view, machineOnline, machineSince: now() });
        if (event.fresh) identity.unregister(event.room);
        if (machineOnline) identity.register(event.room);
        if (machineOnline && (event.fresh || decisions.awaitingSnapshot(event.room))) {
          decisions.awaitSnapshot(event.room);
          decisions.send(event.room, { type: 'sessions.get' });
        }
        // Without the machine in the room the relay would drop a re-send; it goes out when the
        // machine's presence arrives instead.
        if (machineOnline) decisions.resend(event.room);
        const subscribed = options.onJoined?.(event.room);
        if (moves.movedInto(event.room))
          void Promise.resolve(subscribed).finally(() => moves.leaveOldRoom(event.room));
        return;
      }
      case 'refused':
        link.notice(relay, event.code, event.message);
        return;
      case 'socket-closed':
        for (const roomId of link.roomsOf(relay)) outbox.markUnconfirmed(roomId);
        return;
      case 'frame': {
        const frame = event.frame;
        if (frame.kind === 'msg') {
          const room = link.room(frame.room);
          if (room && room.paired.relay === relay) onMessage(room, frame.payload);
        } else if (frame.kind === 'presence' && frame.role === 'machine') {
          const view = views.get(frame.room);
          if (!view) return;
          views.set(frame.room, { ...view, machineOnline: frame.online, machineSince: now() });
          if (frame.online) {
            identity.unregister(frame.room);
            identity.register(frame.room);
            decisions.awaitSnapshot(frame.room);
            decisions.send(frame.room, { type: 'sessions.get' });
            decisions.resend(frame.room);
          } else {
            // Whatever the machine had not confirmed when it left may never have reached it.
            decisions.snapshotCame(frame.room);
            outbox.markUnconfirmed(frame.room);
          }
        } else if (frame.kind === 'error') {
          link.notice(relay, frame.code, frame.message);
        }
        return;
      }
    }
  };
}
