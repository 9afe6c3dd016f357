import { createStore, get, update, type UseStore } from 'idb-keyval';
import {
  IDB_NAME,
  IDB_STORE,
  PAIRINGS_KEY,
  PUSH_ACTIVITY_KEY,
  PUSH_SETTINGS_KEY,
} from '../page-worker/store-layout.ts';
import {
  DEFAULT_PUSH_SETTINGS,
  parsePushSettings,
  type PushActivity,
  type PushSettings,
} from '../page-worker/push-settings.ts';
import { roomsFromPairings, type RoomKey } from './logic/rooms.ts';

// The worker's view of the IndexedDB store it shares with the page (page-worker/store-layout.ts).
// Read failures degrade to "nothing stored" so a notification is still shown.

// Opened on first use, not when the worker starts (createStore opens the database at once).
let opened: UseStore | undefined;
const store = (): UseStore => (opened ??= createStore(IDB_NAME, IDB_STORE));

export async function loadRooms(): Promise<RoomKey[]> {
  try {
    return roomsFromPairings(await get(PAIRINGS_KEY, store()));
  } catch {
    return [];
  }
}

export async function loadSettings(): Promise<PushSettings> {
  try {
    return parsePushSettings(await get(PUSH_SETTINGS_KEY, store()));
  } catch {
    return DEFAULT_PUSH_SETTINGS;
  }
}

/** Remembers the last push per machine for Settings ("last push received"). */
export async function recordPush(roomId: string, activity: PushActivity): Promise<void> {
  try {
    // One read-modify-write transaction: two pushes handled at once do not lose each other.
    await update<Record<string, PushActivity>>(
      PUSH_ACTIVITY_KEY,
      (old) => ({
        ...(old ?? {}),
        [roomId]: activity,
      }),
      store(),
    );
  } catch {
    // Losing the "last push" time must never stop the notification.
  }
}
