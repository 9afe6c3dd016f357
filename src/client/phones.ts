import {
  decodeBoxKey,
  openRoomRotate,
  type MachineMessage,
  type MachineStatus,
  type RotateOpenErrorCode,
  type Result,
  err,
  ok,
} from '../../protocol/index.ts';
import type { MachineView } from './machine-view.ts';
import type { PairedMachine } from './pairing-store.ts';
import { identitySecretKey } from './phone-identity.ts';

// E6 on the phone, decided from the stored pairing and the machine's messages only, so every rule
// is tested without a socket: when to register, which machine key to trust, whether a
// `room.rotate` is ours and opens, and when the machine has removed this phone.

/** The machine announced per-phone identities. */
export const phonesOffered = (view: Pick<MachineView, 'status'> | undefined): boolean =>
  view?.status?.capabilities?.phones === true;

/**
 * Whether to send `phone.register` now. A machine that once showed its key (pinned) counts even
 * before its status arrives: a phone that was offline during a revoke comes back to the old
 * room, where the machine answers nothing but `phone.register` (with that phone's rotate).
 */
export const shouldRegister = (
  paired: PairedMachine,
  view: Pick<MachineView, 'status'> | undefined,
): boolean =>
  paired.phone !== undefined && (paired.machineBoxKey !== undefined || phonesOffered(view));

/**
 * The key to pin from a status, or null. Only the first key is ever pinned: anyone holding the
 * room secret (the revoked phone too) can join as machine and announce another key.
 */
export function keyToPin(paired: PairedMachine, status: MachineStatus): string | null {
  if (paired.machineBoxKey !== undefined || status.boxKey === undefined) return null;
  return decodeBoxKey(status.boxKey) ? status.boxKey : null;
}

export const ROTATE_REFUSALS = {
  notForMe: 'not-for-me',
  noIdentity: 'no-identity',
  noPinnedKey: 'no-pinned-key',
} as const;
export type RotateRefusal = (typeof ROTATE_REFUSALS)[keyof typeof ROTATE_REFUSALS];

/**
 * Opens a `room.rotate`: only our own (`phoneId`), only with the pinned machine key. A box for
 * another phone is `not-for-me` (silently ignored by the caller); any other failure is shown.
 */
export function readRotate(
  paired: PairedMachine,
  message: Extract<MachineMessage, { type: 'room.rotate' }>,
): Result<{ secret: string; relay: string }, RotateRefusal | RotateOpenErrorCode> {
  const phone = paired.phone;
  if (!phone) return err(ROTATE_REFUSALS.noIdentity, 'This pairing has no phone identity.');
  if (message.phoneId !== phone.phoneId)
    return err(ROTATE_REFUSALS.notForMe, 'The rotate is for another phone.');
  const machineKey = paired.machineBoxKey ? decodeBoxKey(paired.machineBoxKey) : null;
  if (!machineKey) return err(ROTATE_REFUSALS.noPinnedKey, 'The machine key was never seen.');
  const secretKey = identitySecretKey(phone);
  if (!secretKey) return err('bad-key', 'The stored phone key is damaged.');
  const opened = openRoomRotate(message.box, machineKey, secretKey);
  if (!opened.ok) return opened;
  return ok({ secret: opened.value.secret, relay: opened.value.relay });
}

/** The machine says this phone is revoked: its own `phones` entry, or a `phone-revoked` error. */
export function removedBy(paired: PairedMachine, message: MachineMessage): boolean {
  const phoneId = paired.phone?.phoneId;
  if (phoneId === undefined) return false;
  if (message.type === 'phones')
    return message.phones.some((p) => p.phoneId === phoneId && p.revoked);
  // A refused phone.revoke says `phone-revoked` about the *target* (revoked already), not us.
  return (
    message.type === 'error' &&
    message.reason === 'phone-revoked' &&
    message.context !== 'phone.revoke'
  );
}
