import type { MachineMessage } from '../../protocol/index.ts';
import type { Decisions } from './decisions.ts';
import type { Identity } from './identity.ts';
import { emptyView } from './machine-view.ts';
import type { makeViewCache } from './offline-cache.ts';
import type { Outbox } from './outbox.ts';
import type { PairedMachine, PairingStore } from './pairing-store.ts';
import { readRotate } from './phones.ts';
import type { Room, RoomLink } from './room-link.ts';
import type { ViewStore } from './view-store.ts';

export type RoomMoves = ReturnType<typeof makeRoomMoves>;

// E6: a room this phone leaves because the machine said so — a room.rotate moves it to a new
// room at once, a revoke removes it (the secret goes, a notice stays).
export function makeRoomMoves(options: {
  link: RoomLink;
  views: ViewStore;
  pairings: PairingStore;
  outbox: Outbox;
  cache: ReturnType<typeof makeViewCache>;
  decisions: Decisions;
  identity: Identity;
  addRoom: (paired: PairedMachine) => void;
  dropRoom: (roomId: string) => void;
  pushEndpoint?: () => string | undefined;
  now: () => number;
  log: (line: string) => void;
}) {
  const { link, views, pairings, outbox, cache, decisions, identity, log } = options;
  // E6: a room we moved into after a rotate -> the old room and relay, whose push subscription
  // is dropped once the new room's own is in place (subscribe new, then unsubscribe old).
  const movedFrom = new Map<string, { roomId: string; relay: string }>();
  const following = new Set<string>();
  let rotateFailures: Record<string, string> = {};
  // E6: old room -> the room it moved to, so a screen open on the old one follows the move.
  let movedRooms: Record<string, string> = {};

  // E6: a room.rotate for this phone, opened with the pinned key: move to the new room at once.
  const follow = async (room: Room, message: Extract<MachineMessage, { type: 'room.rotate' }>) => {
    const from = room.paired.roomId;
    const opened = readRotate(room.paired, message);
    if (!opened.ok) {
      if (opened.code === 'not-for-me') return;
      log(`room ${from.slice(0, 8)}: a room.rotate was refused (${opened.code})`);
      rotateFailures = { ...rotateFailures, [from]: opened.code };
      return views.changed();
    }
    if (following.has(from)) return;
    following.add(from);
    try {
      const moved = await pairings.rotate(from, opened.value);
      if (!moved) return;
      const to = moved.roomId;
      const oldView = views.get(from);
      link.deleteRoom(from);
      identity.unregister(from);
      decisions.snapshotCame(from);
      options.addRoom(moved);
      views.remove(from);
      views.put(to, {
        ...(oldView ?? emptyView(to, moved.machine, moved.relay)),
        roomId: to,
        relay: moved.relay,
        machineOnline: false,
        machineSince: null,
      });
      const { [from]: _f, ...failures } = rotateFailures;
      rotateFailures = failures;
      outbox.moveRoom(from, to);
      cache.forget(from);
      movedFrom.set(to, { roomId: from, relay: room.paired.relay });
      movedRooms = Object.fromEntries([
        ...Object.entries(movedRooms).map(([k, v]) => [k, v === from ? to : v]),
        [from, to],
      ]);
      views.changed();
      const c = link.connection(moved.relay);
      if (c) c.join(to);
      else link.connectionFor(moved.relay);
    } finally {
      following.delete(from);
    }
  };

  return {
    follow,
    rotateFailures: () => rotateFailures,
    movedRooms: () => movedRooms,
    /** True for a room this phone moved into whose old room's push subscription still stands. */
    movedInto: (to: string) => movedFrom.has(to),
    // E6: the old room's push subscription goes once the new room's is in place.
    leaveOldRoom(to: string) {
      const old = movedFrom.get(to);
      if (!old) return;
      movedFrom.delete(to);
      link.pushUnsubscribe(old.relay, old.roomId, options.pushEndpoint?.());
      // The relay has no "leave": a socket that holds only the old room is closed.
      if (link.connection(old.relay) && link.roomsOf(old.relay).length === 0)
        link.closeConnection(old.relay);
    },
    // E6: the machine revoked this phone: the secret goes, a notice stays ("removed from …").
    async removed(roomId: string) {
      const room = link.room(roomId);
      if (!room) return;
      const c = link.connection(room.paired.relay);
      link.pushUnsubscribe(room.paired.relay, roomId, options.pushEndpoint?.());
      link.deleteRoom(roomId);
      await pairings.markRemoved(roomId, options.now());
      options.dropRoom(roomId);
      if (link.roomsOf(room.paired.relay).length === 0) link.closeRelay(room.paired.relay);
      else c?.restart();
    },
  };
}
