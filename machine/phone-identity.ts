import { randomBytes } from 'node:crypto';
import {
  decodeBoxKey,
  sealRoomRotate,
  toBase64Url,
  type BoxKeyPair,
  type DecidedBy,
  type MachineMessage,
  type PhoneRegister,
  type PhoneRevoke,
} from '../protocol/index.ts';
import type { Core } from './core.ts';
import type { LocalResult } from './machine-types.ts';
import { toEntry, type Phones } from './phones.ts';
import type { Rooms } from './rooms.ts';

// E6 on the machine: `phone.register`, `phone.revoke` (from a phone or the desk), the `phones`
// list and the rotation a revoke starts. phone-actions.ts runs the checks every action shares (D11
// clock, idempotency) before `register` and `revokeAction`.

export type PhoneIdentity = ReturnType<typeof makePhoneIdentity>;

export function makePhoneIdentity(deps: {
  core: Core;
  phones: Phones;
  rooms: () => Rooms;
  boxKeyPair: BoxKeyPair;
  relay: string;
  machineName: string;
  onRevoked?(phoneId: string): void;
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

  const error = (message: string, reason?: 'phone-revoked' | 'presence-invalid') =>
    ({
      v: 1,
      type: 'error',
      ts: now(),
      message,
      context: 'phone.register',
      ...(reason ? { reason } : {}),
    }) as const;

  /** E6.3: record the revoke, tell the room, box S′ to every remaining phone, move. */
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
    deps.onRevoked?.(phoneId);
    // The revoked phone reads its own entry `revoked: true` here, in the room it still holds.
    core.send(phonesMessage(answer));
    for (const p of phones.remaining()) core.send(roomRotate(p.phoneId, p.boxKey, nextText));
    deps.rooms().moveTo(next);
    return { ok: true };
  }

  return {
    phonesMessage,
    /** E6.4: a late phone's `room.rotate` with the current secret, or why it gets none. */
    rotateFor(phoneId: string, boxKey: string): MachineMessage | string {
      const p = phones.get(phoneId);
      if (p === undefined) return 'not a registered phone';
      if (p.revoked) return 'a revoked phone';
      if (p.boxKey !== boxKey) return 'another box key';
      return roomRotate(p.phoneId, p.boxKey, toBase64Url(deps.rooms().current().secret));
    },
    register(m: PhoneRegister): MachineMessage[] {
      const r = phones.register(m);
      if (!r.ok) {
        core.log('warn', `phone-register-${r.code}`, r.message);
        return [error(r.message, r.reason as 'phone-revoked' | 'presence-invalid' | undefined)];
      }
      if (r.created) core.log('info', 'phone-registered', `new phone "${m.name}"`);
      return [phonesMessage(m.requestId)];
    },
    /** A phone's `phone.revoke`: the answer goes out in the current room, then the move. */
    revokeAction(m: PhoneRevoke): MachineMessage[] {
      const target = phones.get(m.phoneId);
      if (target === undefined || target.revoked) {
        return [
          {
            v: 1,
            type: 'error',
            ts: now(),
            message: target ? 'that phone is revoked already' : 'no such phone on this machine',
            context: 'phone.revoke',
            ...(target ? { reason: 'phone-revoked' as const } : {}),
          },
        ];
      }
      const r = revoke(m.phoneId, 'phone', m.requestId);
      return r.ok
        ? []
        : [{ v: 1, type: 'error', ts: now(), message: r.message, context: 'phone.revoke' }];
    },
    revoke: (phoneId: string) => revoke(phoneId, 'desk'),
    /** E6.2: who decided, for `approval.closed.by` / `question.closed.by`. */
    by(phoneId: string | undefined): DecidedBy | undefined {
      const p = phoneId === undefined ? undefined : phones.get(phoneId);
      return p === undefined ? undefined : { phoneId: p.phoneId, name: p.name };
    },
  };
}
