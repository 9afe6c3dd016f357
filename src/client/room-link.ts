import {
  fromBase64Url,
  roomKeys,
  seal,
  type ClientFrame,
  type PhoneMessage,
} from '../../protocol/index.ts';
import type { RelayNotice } from './client-types.ts';
import {
  LINK_STATES,
  makeConnection,
  type Connection,
  type ConnectionEvent,
  type LinkStatus,
} from './connection.ts';
import type { PairedMachine } from './pairing-store.ts';
import { provenMessage } from './proven.ts';
import type { SocketFactory, Timeouts } from './socket.ts';

// The relay/room link: the paired rooms with their keys, one connection per relay URL, each
// relay's link status and last notice. It seals and sends; it decides nothing.
export type Room = { paired: PairedMachine; key: Uint8Array };
export type RoomLink = ReturnType<typeof makeRoomLink>;

export function makeRoomLink(options: {
  socket: SocketFactory;
  timers: Timeouts;
  now: () => number;
  random: () => number;
  log: (line: string) => void;
  onEvent: (relay: string, event: ConnectionEvent) => void;
  onChange: () => void;
}) {
  const { now, log } = options;
  const rooms = new Map<string, Room>();
  const connections = new Map<string, Connection>();
  let links: Record<string, LinkStatus> = {};
  let notices: Record<string, RelayNotice> = {};

  const roomsOf = (relay: string) =>
    [...rooms.values()].filter((r) => r.paired.relay === relay).map((r) => r.paired.roomId);

  const connectionFor = (relay: string): Connection => {
    let c = connections.get(relay);
    if (!c) {
      c = makeConnection({
        url: relay,
        socket: options.socket,
        timers: options.timers,
        now,
        random: options.random,
        rooms: () => roomsOf(relay),
        onEvent: (e) => options.onEvent(relay, e),
        log,
      });
      connections.set(relay, c);
      links = { ...links, [relay]: c.status() };
      c.start();
    }
    return c;
  };

  /** Closes a relay's socket; its link status stays until closeRelay. */
  const closeConnection = (relay: string) => {
    connections.get(relay)?.close();
    connections.delete(relay);
  };

  return {
    room: (roomId: string) => rooms.get(roomId),
    roomIds: () => rooms.keys(),
    roomsOf,
    /** Keys a stored pairing; false (logged) when its secret is unreadable. */
    addRoom(paired: PairedMachine): boolean {
      const secret = fromBase64Url(paired.secret);
      if (!secret) {
        log(`pairing ${paired.roomId.slice(0, 8)}: stored secret unreadable`);
        return false;
      }
      rooms.set(paired.roomId, { paired, key: roomKeys(secret).key });
      return true;
    },
    deleteRoom: (roomId: string) => rooms.delete(roomId),
    connection: (relay: string) => connections.get(relay),
    connectionFor,
    closeConnection,
    /** The relay is no longer used by any room: its socket and its link status go. */
    closeRelay(relay: string) {
      closeConnection(relay);
      const { [relay]: _l, ...others } = links;
      links = others;
      options.onChange();
    },
    /** True when the room's relay socket is up and the room joined. */
    joined(roomId: string): boolean {
      const room = rooms.get(roomId);
      const c = room ? connections.get(room.paired.relay) : undefined;
      return !!c && c.status().state === LINK_STATES.online && c.isJoined(roomId);
    },
    /**
     * Seals a message with the room's key and sends it; false when it could not go out. E9: with
     * a machine key from the pairing code, every message goes as `phone.sealed`, proving this
     * phone sent it (a copy of the code cannot).
     */
    transmit(roomId: string, message: PhoneMessage): boolean {
      const room = rooms.get(roomId);
      if (!room) return false;
      const payload = seal(provenMessage(room.paired, message), room.key);
      const c = connections.get(room.paired.relay);
      return c?.send({ kind: 'msg', room: roomId, payload }) ?? false;
    },
    /** Sends a relay frame for a joined room (push-subscribe / -unsubscribe); false otherwise. */
    sendFrame(roomId: string, frame: ClientFrame): boolean {
      const room = rooms.get(roomId);
      const c = room ? connections.get(room.paired.relay) : undefined;
      return !!c && c.isJoined(roomId) && c.send(frame);
    },
    /** Drops the room's push subscription at its relay, when there is one. */
    pushUnsubscribe(relay: string, roomId: string, endpoint: string | undefined) {
      if (endpoint)
        connections.get(relay)?.send({ kind: 'push-unsubscribe', room: roomId, endpoint });
    },
    links: () => links,
    setLink(relay: string, status: LinkStatus) {
      links = { ...links, [relay]: status };
      options.onChange();
    },
    notices: () => notices,
    notice(relay: string, code: string, message: string | undefined) {
      notices = { ...notices, [relay]: { code, message, at: now() } };
      options.onChange();
    },
    dismissNotice(relay: string) {
      const { [relay]: _n, ...rest } = notices;
      notices = rest;
      options.onChange();
    },
    each: (fn: (c: Connection) => void) => connections.forEach(fn),
    closeAll() {
      connections.forEach((c) => c.close());
      connections.clear();
    },
  };
}
