import { open, parseCompactPush, type CompactPush } from '../../protocol/index.ts';
import type { RoomKey } from './rooms.ts';

// D6: the push body is exactly the machine's sealed compact payload; nothing says which room it
// belongs to, so every stored room key is tried (a failed secretbox open is cheap and leaks
// nothing). Whatever happens, the caller still shows a notification: browsers revoke the
// subscription of a worker that receives pushes and shows nothing.

export const UNREADABLE_REASONS = {
  /** The push had no body at all. */
  noBody: 'no-body',
  /** No machine is paired on this phone (e.g. storage was cleared). */
  noPairings: 'no-pairings',
  /** No stored key opens it: the machine was re-paired elsewhere or the body is garbage. */
  noKeyOpens: 'no-key-opens',
  /** A key opened it but it is not a compact push we understand (newer version, bad fields). */
  notUnderstood: 'not-understood',
} as const;
export type UnreadableReason = (typeof UNREADABLE_REASONS)[keyof typeof UNREADABLE_REASONS];

export type OpenedPush =
  | { ok: true; room: RoomKey; push: CompactPush }
  | { ok: false; reason: UnreadableReason; room?: RoomKey; detail: string };

export function openPush(body: string | null, rooms: readonly RoomKey[]): OpenedPush {
  if (body === null || body.trim() === '') {
    return { ok: false, reason: UNREADABLE_REASONS.noBody, detail: 'The push had no body.' };
  }
  if (rooms.length === 0) {
    return {
      ok: false,
      reason: UNREADABLE_REASONS.noPairings,
      detail: 'No paired machine is stored on this device.',
    };
  }
  const payload = body.trim();
  for (const room of rooms) {
    const opened = open(payload, room.key);
    if (!opened.ok) {
      // A sealed body that authenticates but is not JSON is this room's, and still unreadable.
      if (opened.code === 'not-json') {
        return {
          ok: false,
          reason: UNREADABLE_REASONS.notUnderstood,
          room,
          detail: opened.message,
        };
      }
      continue;
    }
    const parsed = parseCompactPush(opened.value);
    if (parsed.ok) return { ok: true, room, push: parsed.value };
    return { ok: false, reason: UNREADABLE_REASONS.notUnderstood, room, detail: parsed.message };
  }
  return {
    ok: false,
    reason: UNREADABLE_REASONS.noKeyOpens,
    detail: 'No stored room key opens this push.',
  };
}
