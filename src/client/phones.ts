import {
  decodeBoxKey,
  openPhoneRemoved,
  openRoomRotate,
  type MachineMessage,
  type PhoneEntry,
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
 * E9.9: the machine lists this phone as waiting for the owner to let it in (from an approved
 * phone or the desk). Until then the machine refuses everything but registering, so the app
 * sends nothing and says why, instead of collecting refusals.
 */
export const waitingEntry = (
  view: Pick<MachineView, 'phones'> | undefined,
  phoneId: string | undefined,
): PhoneEntry | null =>
  (phoneId !== undefined &&
    view?.phones?.find((p) => p.phoneId === phoneId && p.state === 'pending' && !p.revoked)) ||
  null;

/** E9.9: the machine's list, which said this phone waits, now says it was let in. */
export const letIn = (
  before: Pick<MachineView, 'phones'>,
  after: Pick<MachineView, 'phones'>,
  phoneId: string | undefined,
): boolean => {
  const now = after.phones?.find((p) => p.phoneId === phoneId);
  return waitingEntry(before, phoneId) !== null && now?.state === 'approved' && !now.revoked;
};

/**
 * E9.9: the other phones waiting for the owner, as this phone may let them in: none while this
 * phone waits itself (it can approve nothing) or the machine has sent no list.
 */
export const othersWaiting = (
  view: Pick<MachineView, 'phones'> | undefined,
  phoneId: string | undefined,
): PhoneEntry[] =>
  phoneId === undefined || waitingEntry(view, phoneId) !== null
    ? []
    : (view?.phones ?? []).filter(
        (p) => p.phoneId !== phoneId && p.state === 'pending' && !p.revoked,
      );

/** E9: the machine key this phone trusts — from the pairing code, never from a status. */
export const pinnedKey = (paired: PairedMachine): Uint8Array | null =>
  paired.boxKeyFromCode && paired.machineBoxKey ? decodeBoxKey(paired.machineBoxKey) : null;

/**
 * E9: the machine offers phones but this pairing's code carried no machine key (made before E9,
 * or by an older machine): no E6/E9 features; the app says "re-pair to protect this machine".
 */
export const needsProtection = (
  paired: PairedMachine,
  view: Pick<MachineView, 'status'> | undefined,
): boolean => phonesOffered(view) && pinnedKey(paired) === null;

/**
 * Whether to send `phone.register` now. E9: only with a machine key from the code. A pinned key
 * counts even before the status arrives: a phone that was offline during a revoke comes back to
 * the old room, where the machine answers nothing but `phone.register` (with that phone's rotate).
 */
export const shouldRegister = (paired: PairedMachine): boolean =>
  paired.phone !== undefined && pinnedKey(paired) !== null;

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
  const machineKey = pinnedKey(paired);
  if (!machineKey) return err(ROTATE_REFUSALS.noPinnedKey, 'The pairing code had no machine key.');
  const secretKey = identitySecretKey(phone);
  if (!secretKey) return err('bad-key', 'The stored phone key is damaged.');
  const opened = openRoomRotate(message.box, machineKey, secretKey);
  if (!opened.ok) return opened;
  return ok({ secret: opened.value.secret, relay: opened.value.relay });
}

/**
 * E9: what a message says about this phone's pairing. `removed`: a `phone.removed` for this
 * phone that opens with the pinned machine key — the only proof the pairing may be deleted on.
 * `claimed`: this phone is said to be revoked (its own `phones` entry, a `phone-revoked` error)
 * without that proof — anyone with the room secret can say so: a notice, and the pairing stays.
 */
export function removalOf(
  paired: PairedMachine,
  message: MachineMessage,
): 'removed' | 'claimed' | null {
  const phone = paired.phone;
  if (phone === undefined) return null;
  if (message.type === 'phone.removed') {
    if (message.phoneId !== phone.phoneId) return null;
    const machineKey = pinnedKey(paired);
    const secretKey = identitySecretKey(phone);
    if (!machineKey || !secretKey) return 'claimed';
    return openPhoneRemoved(message.box, phone.phoneId, machineKey, secretKey).ok
      ? 'removed'
      : 'claimed';
  }
  if (message.type === 'phones')
    return message.phones.some((p) => p.phoneId === phone.phoneId && p.revoked) ? 'claimed' : null;
  // A refused phone.revoke says `phone-revoked` about the *target* (revoked already), not us.
  return message.type === 'error' &&
    message.reason === 'phone-revoked' &&
    message.context !== 'phone.revoke'
    ? 'claimed'
    : null;
}
