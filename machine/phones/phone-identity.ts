import { randomBytes } from 'node:crypto';
import {
  decodeBoxKey,
  phoneAuthorityChallengeText,
  sealPhoneRemoved,
  sealRoomRotate,
  toBase64Url,
  type BoxKeyPair,
  type DecidedBy,
  type MachineMessage,
  type PhoneApprove,
  type PhoneRegister,
  type PhoneRevoke,
  type ReasonCode,
} from '../../protocol/index.ts';
import type { Core } from '../core.ts';
import type { LocalResult } from '../machine-types.ts';
import { fingerprintOf, toEntry, type Phones, type StoredPhone } from './phones.ts';
import type { Rooms } from '../links/rooms.ts';

// E6 + E9 on the machine: `phone.register`, `phone.approve`, `phone.revoke` (from a phone or the
// desk), the `phones` list, the rotation a revoke starts and the `phone.removed` proof the
// revoked phone gets. phone-actions.ts runs the checks every action shares (identity, D11 clock,
// idempotency) first; `sender` is the phone a `phone.sealed` proved (E9), absent for a plain
// message (accepted only before identity mode).

export type PhoneIdentity = ReturnType<typeof makePhoneIdentity>;

export function makePhoneIdentity(deps: {
  core: Core;
  phones: Phones;
  rooms: () => Rooms;
  boxKeyPair: BoxKeyPair;
  relay: string;
}) {
  const { core, phones } = deps;
  const now = () => core.timers.now();

  const phonesMessage = (requestId?: string): MachineMessage => ({
    v: 1,
    type: 'phones',
    ts: now(),
    ...(requestId !== undefined ? { requestId } : {}),
    phones: phones.list().map(toEntry),
  });

  const roomRotate = (phoneId: string, boxKey: string, secret: string): MachineMessage => ({
    v: 1,
    type: 'room.rotate',
    ts: now(),
    phoneId,
    box: sealRoomRotate(
      { secret, relay: deps.relay },
      decodeBoxKey(boxKey)!,
      deps.boxKeyPair.secretKey,
    ),
  });

  /** E9: the only message that lets a phone delete its pairing: boxed to it by our key. */
  const removed = (p: StoredPhone): MachineMessage => ({
    v: 1,
    type: 'phone.removed',
    ts: now(),
    phoneId: p.phoneId,
    box: sealPhoneRemoved(p.phoneId, decodeBoxKey(p.boxKey)!, deps.boxKeyPair.secretKey),
  });

  const error = (context: string, message: string, reason?: ReasonCode): MachineMessage => ({
    v: 1,
    type: 'error',
    ts: now(),
    message,
    context,
    ...(reason ? { reason } : {}),
  });

  const short = (id: string) => id.slice(0, 8);

  /** E6.3: record the revoke, tell the room, box S′ to every approved phone, move. */
  function revoke(phoneId: string, via: 'phone' | 'desk', answer?: string): LocalResult {
    const target = phones.get(phoneId);
    if (target === undefined)
      return { ok: false, code: 'no-phone', message: `no phone ${phoneId}` };
    if (target.revoked) {
      return { ok: false, code: 'no-phone', message: `phone ${phoneId} is revoked already` };
    }
    const next = new Uint8Array(randomBytes(32));
    const nextText = toBase64Url(next);
    const oldText = toBase64Url(deps.rooms().current().secret);
    if (!phones.revoke(phoneId, () => deps.rooms().retired.record(oldText, nextText))) {
      return { ok: false, code: 'no-phone', message: 'the machine could not record the revoke' };
    }
    core.log('warn', 'phone-revoked', `phone "${target.name}" revoked from the ${via}`);
    // The revoked phone reads its own entry `revoked: true` here, in the room it still holds,
    // and the proof it may delete its pairing with (E9).
    core.send(phonesMessage(answer));
    core.send(removed(target));
    // E9: a pending phone (maybe the copied code's) is not handed the new secret.
    for (const p of phones.remaining()) core.send(roomRotate(p.phoneId, p.boxKey, nextText));
    deps.rooms().moveTo(next);
    return { ok: true };
  }

  /** E9: presence over "<action> <target>" when the policy asks for it, from the sender's credential. */
  function authority(
    m: PhoneApprove | PhoneRevoke,
    sender: string | undefined,
  ): MachineMessage | null {
    if (sender === undefined || !core.presence.authorityNeedsPresence()) return null;
    const text = phoneAuthorityChallengeText({
      roomId: core.roomId(),
      action: m.type,
      target: m.phoneId,
      requestId: m.requestId,
      ts: m.ts,
    });
    const refused = core.presence.check(m.presence, text, sender);
    return refused === null ? null : error(m.type, refused.message, refused.reason);
  }

  return {
    phonesMessage,
    /** E9: the proof for a revoked phone that shows itself (sealed) again. */
    removed,
    /** E6.4: a late phone's `room.rotate` with the current secret (E9: or its removal proof). */
    rotateFor(phoneId: string, boxKey: string): MachineMessage | string {
      const p = phones.get(phoneId);
      if (p === undefined) return 'not a registered phone';
      if (p.boxKey !== boxKey) return 'another box key';
      if (p.revoked) return removed(p);
      if (p.state !== 'approved') return 'a pending phone';
      return roomRotate(p.phoneId, p.boxKey, toBase64Url(deps.rooms().current().secret));
    },
    register(m: PhoneRegister, sender: string | undefined): MachineMessage[] {
      phones.sweep();
      // E9: once a phone is approved, a phone proves who it is (a plain register could name the
      // owner's phone id, or be the copied code's).
      if (sender === undefined && phones.identityMode()) {
        core.log('warn', 'phone-register-identity-required', 'a plain phone.register refused');
        return [
          error(
            'phone.register',
            'this machine accepts only sealed messages from its phones (E9)',
            'identity-required',
          ),
        ];
      }
      const pending = phones.identityMode() && phones.get(m.phoneId) === undefined;
      const r = phones.register(m, { pending });
      if (!r.ok) {
        core.log('warn', `phone-register-${r.code}`, r.message);
        const p = phones.get(m.phoneId);
        // Only a proven revoked phone gets its proof; everyone else just the refusal.
        const proof = p?.revoked && sender === p.phoneId ? [removed(p)] : [];
        return [error('phone.register', r.message, r.reason), ...proof];
      }
      const fp = fingerprintOf(m.boxKey);
      if (r.created && r.pending) {
        core.log(
          'warn',
          'phone-pending',
          `New phone "${m.name}" ${fp} asks to join — phones approve ${short(m.phoneId)}`,
        );
      } else if (r.created) {
        core.log('info', 'phone-registered', `new phone "${m.name}" ${fp} (approved)`);
      }
      const answer = phonesMessage(m.requestId);
      return [answer];
    },
    /** E9: an approved phone lets a pending one in (presence under `risky`/`all`). */
    approveAction(m: PhoneApprove, sender: string | undefined): MachineMessage[] {
      phones.sweep();
      const target = phones.get(m.phoneId);
      if (target === undefined || target.state !== 'pending') {
        return [error('phone.approve', 'that phone does not wait for approval')];
      }
      const refused = authority(m, sender);
      if (refused !== null) return [refused];
      if (!phones.approve(m.phoneId)) {
        return [error('phone.approve', 'the machine could not record the approval')];
      }
      core.log('warn', 'phone-approved', `phone "${target.name}" approved from a phone`);
      return [phonesMessage(m.requestId)];
    },
    /** A phone's `phone.revoke`: the answer goes out in the current room, then the move. */
    revokeAction(m: PhoneRevoke, sender: string | undefined): MachineMessage[] {
      const target = phones.get(m.phoneId);
      if (target === undefined || target.revoked) {
        return [
          error(
            'phone.revoke',
            target ? 'that phone is revoked already' : 'no such phone on this machine',
            target ? 'phone-revoked' : undefined,
          ),
        ];
      }
      const refused = authority(m, sender);
      if (refused !== null) return [refused];
      const r = revoke(m.phoneId, 'phone', m.requestId);
      return r.ok ? [] : [error('phone.revoke', r.message)];
    },
    revoke: (phoneId: string) => revoke(phoneId, 'desk'),
    /** E9: the desk's `phones approve <id>`. */
    approve(phoneId: string): LocalResult {
      phones.sweep();
      const p = phones.get(phoneId);
      if (p === undefined || p.state !== 'pending' || !phones.approve(phoneId)) {
        return { ok: false, code: 'no-phone', message: `phone ${short(phoneId)} does not wait` };
      }
      core.log('warn', 'phone-approved', `phone "${p.name}" approved at the desk`);
      core.send(phonesMessage());
      return { ok: true };
    },
    /** E9: the desk's `phones forget <id>`: a pending or revoked phone's record goes. */
    forget(phoneId: string): LocalResult {
      const p = phones.get(phoneId);
      if (p === undefined) return { ok: false, code: 'no-phone', message: `no phone ${phoneId}` };
      if (p.state === 'approved') {
        return {
          ok: false,
          code: 'no-phone',
          message: 'an approved phone is revoked first (revoke-phone), then forgotten',
        };
      }
      if (!phones.forget(phoneId)) {
        return { ok: false, code: 'no-phone', message: 'the machine could not forget the phone' };
      }
      core.send(phonesMessage());
      return { ok: true };
    },
    /** E9: the clock's sweep; every phone hears the list when something was forgotten. */
    sweep(): void {
      if (phones.sweep() > 0) core.send(phonesMessage());
    },
    /** E6.2: who decided, for `approval.closed.by` / `question.closed.by`. */
    by(phoneId: string | undefined): DecidedBy | undefined {
      const p = phoneId === undefined ? undefined : phones.get(phoneId);
      return p === undefined ? undefined : { phoneId: p.phoneId, name: p.name };
    },
  };
}
