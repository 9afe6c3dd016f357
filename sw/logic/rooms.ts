import {
  BOX_KEY_BYTES,
  decodeBoxKey,
  fromBase64,
  fromBase64Url,
  roomKeys,
  SECRET_BYTES,
} from '../../protocol/index.ts';

/** E9: what proves this phone sent an answer: its id, its secret box key, the machine's key. */
export type PhoneProof = { phoneId: string; phoneSecretKey: Uint8Array; machineBoxKey: Uint8Array };

/** A paired machine as the worker needs it: where to answer, what to call it, how to open. */
export type RoomKey = {
  roomId: string;
  relay: string;
  machine: string;
  key: Uint8Array;
  /** E9: present when the pairing's code carried the machine key (then answers are sealed). */
  proof?: PhoneProof;
};

/** E9: the app's stored identity and code-pinned machine key, or undefined (then plain). */
function proofOf(entry: Record<string, unknown>): PhoneProof | undefined {
  if (entry.boxKeyFromCode !== true || typeof entry.machineBoxKey !== 'string') return undefined;
  const phone = entry.phone as Record<string, unknown> | undefined;
  if (typeof phone?.phoneId !== 'string' || typeof phone.boxSecretKey !== 'string')
    return undefined;
  const machineBoxKey = decodeBoxKey(entry.machineBoxKey);
  const phoneSecretKey = fromBase64(phone.boxSecretKey);
  if (!machineBoxKey || !phoneSecretKey || phoneSecretKey.length !== BOX_KEY_BYTES)
    return undefined;
  return { phoneId: phone.phoneId, phoneSecretKey, machineBoxKey };
}

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
    const proof = proofOf(entry as Record<string, unknown>);
    rooms.push({
      roomId,
      relay,
      machine: typeof machine === 'string' ? machine : '',
      key,
      ...(proof ? { proof } : {}),
    });
  }
  return rooms;
}
