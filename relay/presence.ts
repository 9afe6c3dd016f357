// Presence semantics (spec): `online:true` to the other role on every new join of a role;
// `online:false` only when the LAST socket of that role leaves the room. Behind an interface so
// a multi-replica relay can count across replicas (RS3).
import { encodeFrame } from '../protocol/index.ts';
import { otherRole, type Role, type Rooms } from './rooms.ts';

export interface Presence {
  joined(room: string, role: Role): void;
  /** `remaining`: sockets of that role still in the room after this one left. */
  left(room: string, role: Role, remaining: number): void;
}

export function makeLocalPresence(rooms: Rooms): Presence {
  const announce = (room: string, role: Role, online: boolean) =>
    rooms.broadcast(room, otherRole(role), encodeFrame({ kind: 'presence', room, role, online }));
  return {
    joined: (room, role) => announce(room, role, true),
    left(room, role, remaining) {
      if (remaining === 0) announce(room, role, false);
    },
  };
}
