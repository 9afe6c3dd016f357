import {
  decodeBoxKey,
  openPhoneMessage,
  parsePhoneMessage,
  type BoxKeyPair,
  type MessageResult,
  type PhoneMessage,
  type PhoneSealed,
} from '../../protocol/index.ts';
import type { Log } from '../log.ts';
import type { Phones } from './phones.ts';

// E9: opens a `phone.sealed`. The inner message counts as sent by `phoneId` only when the box
// verifies with the box key registered for that phone — or, for the first `phone.register` of a
// phone the machine does not know yet, with the key that register names (the sender proves it
// holds the secret half). The inner message names no other sender, and is never a phone.sealed
// itself.

export type Unsealed =
  | { ok: true; message: PhoneMessage; sender: string }
  /** The inner text did not parse: answered like any invalid message. */
  | { ok: false; kind: 'inner'; parsed: Exclude<MessageResult<PhoneMessage>, { ok: true }> }
  | {
      ok: false;
      kind: 'refused';
      message: string;
      type?: PhoneMessage['type'];
      requestId?: string;
    };

export type IdentityGate = ReturnType<typeof makeIdentityGate>;

/** The message types whose `phoneId` names their sender (phone.revoke/approve name a target). */
const SENDER_NAMED = new Set<PhoneMessage['type']>(['phone.revoke', 'phone.approve']);

export function makeIdentityGate(o: { phones: Phones; boxKeyPair: BoxKeyPair; log: Log }) {
  return {
    unseal(m: PhoneSealed): Unsealed {
      let value: unknown;
      try {
        value = JSON.parse(m.message);
      } catch {
        return { ok: false, kind: 'refused', message: 'phone.sealed: message is not JSON' };
      }
      const parsed = parsePhoneMessage(value);
      if (!parsed.ok) return { ok: false, kind: 'inner', parsed };
      const inner = parsed.value;
      const about = {
        type: inner.type,
        ...('requestId' in inner && inner.requestId !== undefined
          ? { requestId: inner.requestId }
          : {}),
      };
      const refuse = (message: string): Unsealed => {
        o.log('warn', 'identity-refused', `${inner.type}: ${message}`);
        return { ok: false, kind: 'refused', message, ...about };
      };
      if (inner.type === 'phone.sealed') return refuse('a phone.sealed inside a phone.sealed');
      const named = SENDER_NAMED.has(inner.type) ? undefined : inner.phoneId;
      if (named !== undefined && named !== m.phoneId) {
        return refuse('the message names another phone than the one that sealed it');
      }
      const stored = o.phones.get(m.phoneId);
      const registering = inner.type === 'phone.register' ? inner : undefined;
      if (stored !== undefined && registering && registering.boxKey !== stored.boxKey) {
        // A box key is set once, by the phone itself; a new key is a new pairing.
        return refuse('this phone is registered with another box key; pair again');
      }
      const keyText = stored?.boxKey ?? registering?.boxKey;
      const key = keyText === undefined ? null : decodeBoxKey(keyText);
      if (key === null) return refuse('no phone with this id is registered here');
      const opened = openPhoneMessage(m.box, m.message, key, o.boxKeyPair.secretKey);
      if (!opened.ok) return refuse(`the box does not prove this phone sent it (${opened.code})`);
      // The proven sender is written into the action, so `by` and the records name it.
      const message =
        SENDER_NAMED.has(inner.type) || inner.type === 'phone.register'
          ? inner
          : ({ ...inner, phoneId: m.phoneId } as PhoneMessage);
      return { ok: true, message, sender: m.phoneId };
    },
  };
}
