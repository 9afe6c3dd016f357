// "If no phone socket is currently connected to the room, deliver via Web Push" — with D5: a
// phone socket from which nothing (frame or pong) came for 1.5 × the ping interval counts as
// absent, because a suspended phone's socket can look open for minutes.
import type { Rooms } from './rooms.ts';

export interface PushDecision {
  phonesAbsent(room: string): boolean;
}

export function makeLocalPushDecision(
  rooms: Rooms,
  now: () => number,
  pingIntervalMs: number,
): PushDecision {
  const silenceMs = 1.5 * pingIntervalMs;
  return {
    phonesAbsent(room) {
      const t = now();
      for (const p of rooms.members(room, 'phone')) if (t - p.lastSeenMs <= silenceMs) return false;
      return true;
    },
  };
}
