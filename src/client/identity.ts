import type { WebAuthnCredential } from '../../protocol/index.ts';
import type { MessageFields, PresenceFor } from './decisions.ts';
import type { Kv } from './kv.ts';
import type { PairingStore } from './pairing-store.ts';
import { cleanPhoneName, makePhoneIdentity, registerFields } from './phone-identity.ts';
import { shouldRegister } from './phones.ts';
import type { Room, RoomLink } from './room-link.ts';
import type { ViewStore } from './view-store.ts';
import {
  challengeOf,
  loadCredential,
  PRESENCE_CREDENTIAL_KEY,
  PRESENCE_FAILURES,
  presenceText,
  PresenceError,
  type Authenticator,
} from './webauthn.ts';

export type Identity = ReturnType<typeof makeIdentity>;

// This phone's identity toward its machines (E6) and its presence credential (E7): each room
// gets a phone.register once per fresh join, when the machine offers phones; the machine's box
// key is pinned on first sight; an Allow or a dispatch that needs presence is signed here.
export function makeIdentity(options: {
  kv: Kv;
  link: RoomLink;
  views: ViewStore;
  pairings: PairingStore;
  send: (roomId: string, fields: MessageFields) => unknown;
  uuid: () => string;
  phoneName?: () => string;
  authenticator?: Authenticator;
  onChange: () => void;
}) {
  const { kv, link, pairings, send, uuid, authenticator } = options;
  // E6: rooms whose phone.register went out since their last fresh hello-ok.
  const registered = new Set<string>();
  let credential: WebAuthnCredential | null = null;

  const register = (roomId: string) => {
    const room = link.room(roomId);
    if (!room?.paired.phone || registered.has(roomId)) return;
    if (!shouldRegister(room.paired)) return;
    const fields = registerFields(room.paired.phone, uuid(), credential);
    if (send(roomId, fields)) registered.add(roomId);
  };
  const reRegisterAll = () => {
    for (const roomId of link.roomIds()) {
      registered.delete(roomId);
      register(roomId);
    }
  };

  return {
    register,
    /** The room must register again (a fresh join, the machine back, the room gone). */
    unregister: (roomId: string) => registered.delete(roomId),
    credential: () => credential,
    /** E7: reads the stored credential; start() takes it with restore() once all is loaded. */
    readCredential: () => loadCredential(kv),
    restore(stored: WebAuthnCredential | null) {
      credential = stored;
    },
    newIdentity: () => makePhoneIdentity(uuid(), options.phoneName?.() ?? 'Phone'),
    // E9: the machine key is pinned from the pairing code only: a status never changes it.
    afterStatus(room: Room) {
      register(room.paired.roomId);
    },
    // E7: an assertion when this approval or dispatch needs one and presence is on; null
    // otherwise (the machine then answers presence-required, which the card shows).
    presenceFor:
      (what: Parameters<typeof presenceText>[0]): PresenceFor =>
      async (requestId, ts) => {
        if (!credential || !authenticator) return null;
        const text = presenceText(what, requestId, ts);
        if (text === null) throw new PresenceError(PRESENCE_FAILURES.unusable, 'Bad challenge.');
        return authenticator.assert(credential, await challengeOf(text));
      },
    /** E6: renames this phone for one machine; registered again at once. */
    async renamePhone(roomId: string, name: string): Promise<boolean> {
      const phone = link.room(roomId)?.paired.phone;
      const clean = cleanPhoneName(name);
      if (!phone || clean === null) return false;
      const updated = await pairings.update(roomId, { phone: { ...phone, name: clean } });
      const room = link.room(roomId);
      if (!updated || !room) return false;
      room.paired = updated;
      registered.delete(roomId);
      register(roomId);
      options.onChange();
      return true;
    },
    /**
     * E7: creates the platform credential (user verification required) and registers it with
     * every machine that offers phones. Throws PresenceError (code) when it cannot.
     */
    async enablePresence(): Promise<void> {
      if (!authenticator)
        throw new PresenceError(PRESENCE_FAILURES.unavailable, 'No authenticator.');
      const first = pairings.list().find((p) => p.phone)?.phone;
      const made = await authenticator.create({
        phoneId: first?.phoneId ?? uuid(),
        name: first?.name ?? options.phoneName?.() ?? 'Phone',
      });
      await kv.set(PRESENCE_CREDENTIAL_KEY, made);
      credential = made;
      reRegisterAll();
      options.onChange();
    },
    /** E7: forgets the credential here; machines keep it until this phone registers again. */
    async disablePresence(): Promise<void> {
      await kv.del(PRESENCE_CREDENTIAL_KEY);
      credential = null;
      reRegisterAll();
      options.onChange();
    },
    presenceAvailable: (): Promise<boolean> =>
      authenticator ? authenticator.available() : Promise.resolve(false),
  };
}
