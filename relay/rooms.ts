// Room membership and fan-out. An interface so a multi-replica relay (RS1) can put a
// shared implementation behind the same calls; this is the in-process one. Rooms live in a Map,
// so any valid room id, `__proto__` included, is just a key (D3).
import type { Role } from '../protocol/index.ts';

export type { Role };
export const otherRole = (r: Role): Role => (r === 'machine' ? 'phone' : 'machine');

/** One socket as the room layer sees it. */
export interface Peer {
  /** Sends wire text: a Buffer of UTF-8 JSON (forwarded verbatim) or a string. */
  send(data: Buffer | string): void;
  /** Last time anything (frame or pong) came from this socket, for D5. */
  readonly lastSeenMs: number;
}

export type Peers = { machine: number; phone: number };

export interface Rooms {
  /**
   * Runs `then` once the room can be joined: at once in process; with Redis once this replica
   * listens to the room's channel and knows the other replicas' counts (so hello-ok is right).
   */
  ready(room: string, then: () => void): void;
  /** Adds the peer; false when it was already there in that role. */
  join(room: string, role: Role, peer: Peer): boolean;
  /** Removes the peer; returns how many sockets of that role remain in the room. */
  leave(room: string, role: Role, peer: Peer): number;
  count(room: string, role: Role): number;
  peers(room: string): Peers;
  members(room: string, role: Role): Iterable<Peer>;
  /** Sends to every socket of `role` in `room`. */
  broadcast(room: string, role: Role, data: Buffer | string): void;
  roomCount(): number;
  /** Settles shared state (a replica's counts); after every socket has left. */
  close(): Promise<void>;
}

type Entry = { machine: Set<Peer>; phone: Set<Peer> };
const NONE: ReadonlySet<Peer> = new Set();

export function makeLocalRooms(): Rooms {
  const rooms = new Map<string, Entry>();
  return {
    ready: (_room, then) => then(),
    join(room, role, peer) {
      let e = rooms.get(room);
      if (!e) rooms.set(room, (e = { machine: new Set(), phone: new Set() }));
      const set = e[role];
      if (set.has(peer)) return false;
      set.add(peer);
      return true;
    },
    leave(room, role, peer) {
      const e = rooms.get(room);
      if (!e) return 0;
      e[role].delete(peer);
      if (e.machine.size === 0 && e.phone.size === 0) rooms.delete(room);
      return e[role].size;
    },
    count: (room, role) => rooms.get(room)?.[role].size ?? 0,
    peers(room) {
      const e = rooms.get(room);
      return { machine: e?.machine.size ?? 0, phone: e?.phone.size ?? 0 };
    },
    members: (room, role) => rooms.get(room)?.[role] ?? NONE,
    broadcast(room, role, data) {
      const set = rooms.get(room)?.[role];
      if (set) for (const p of set) p.send(data);
    },
    roomCount: () => rooms.size,
    close: () => Promise.resolve(),
  };
}
