import { get, update } from 'idb-keyval';
import { roomsFromPairings, type RoomKey } from './logic/rooms.ts';
import {
  PAIRINGS_KEY,
  PUSH_ACTIVITY_KEY,
  PUSH_SETTINGS_KEY,
  PRESENCE_ROOMS_KEY,
  parsePushSettings,
  type PushActivity,
  type PushSettings,
} from './logic/store-layout.ts';

// The worker's view of the IndexedDB store it shares with the page (idb-keyval's default store;
// see sw/logic/store-layout.ts). Read failures degrade to "nothing stored" so a notification
// is still shown.

export async function loadRooms(): Promise<RoomKey[]> {
  try {
    return roomsFromPairings(await get(PAIRINGS_KEY));
  } catch {
    return [];
  }
}

export async function loadSettings(): Promise<PushSettings> {
  try {
    return parsePushSettings(await get(PUSH_SETTINGS_KEY));
  } catch {
    return parsePushSettings(undefined);
  }
}

/** E7: the rooms whose machine may need presence; a damaged record reads as "all of them". */
export async function loadPresenceRooms(all: readonly RoomKey[]): Promise<string[]> {
  try {
    const v: unknown = await get(PRESENCE_ROOMS_KEY);
    if (v === undefined) return [];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  } catch {
    // Fall through: unsure means no Allow button, never an Allow that may be refused.
  }
  return all.map((r) => r.roomId);
}

/** Remembers the last push per machine for Settings ("last push received"). */
export async function recordPush(roomId: string, activity: PushActivity): Promise<void> {
  try {
    // One read-modify-write transaction: two pushes handled at once do not lose each other.
    await update<Record<string, PushActivity>>(PUSH_ACTIVITY_KEY, (old) => ({
      ...(old ?? {}),
      [roomId]: activity,
    }));
  } catch {
    // Losing the "last push" time must never stop the notification.
  }
}
