import { fromBase64Url, roomKeys, SECRET_BYTES } from '../../protocol/index.ts';

/** A paired machine as the worker needs it: where to answer, what to call it, how to open. */
export type RoomKey = {
  roomId: string;
  relay: string;
  machine: string;
  key: Uint8Array;
};

/**
 * Reads the app's stored pairings (PAIRINGS_KEY). A malformed entry is skipped, never fatal:
 * every other machine's pushes must still open. The room id is derived again from the secret,
 * so a stored record can never point a key at another room.
 */
export function roomsFromPairings(value: unknown): RoomKey[] {
  if (!Array.isArray(value)) return [];
  const rooms: RoomKey[] = [];
  for (const entry of value as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { secret, relay, machine } = entry as Record<string, unknown>;
    if (typeof secret !== 'string' || typeof relay !== 'string') continue;
    const bytes = fromBase64Url(secret);
    if (!bytes || bytes.length !== SECRET_BYTES) continue;
    const { roomId, key } = roomKeys(bytes);
    rooms.push({ roomId, relay, machine: typeof machine === 'string' ? machine : '', key });
  }
  return rooms;
}
