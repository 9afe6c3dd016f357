// E6: one of the project's test phones with its own identity, over the real relay: a phoneId and
// an X25519 key pair, `phone.register` after every join, and `room.rotate` followed the way the
// app does it (opened only with the machine key it pinned, then the new room joined). E9: the
// machine key is pinned from the pairing code (never from a status) and every message goes as
// `phone.sealed`, as the app sends it.
import { randomUUID } from 'node:crypto';
import {
  encodeBoxKey,
  makeBoxKeyPair,
  openRoomRotate,
  parsePairing,
  roomKeys,
  sealPhoneMessage,
  type WebAuthnCredential,
} from '../../protocol/index.ts';
import { joinRoom, type RoomSocket } from './room-socket.ts';

type Message = Record<string, unknown>;

export type E6Phone = {
  phoneId: string;
  name: string;
  /** The socket in the room this phone holds now. */
  socket(): RoomSocket;
  roomId(): string;
  /** The secret this phone holds now (base64url). */
  secret(): string;
  /** Joins the room of the secret it holds and registers (also "coming back" after a close). */
  join(): Promise<void>;
  /** Waits for this phone's own room.rotate in the current room, opens it, and moves. */
  follow(): Promise<void>;
  send(message: Message): void;
  /** E7/E9: registers this credential with the machine (inside this phone's phone.sealed). */
  setCredential(webauthn: WebAuthnCredential): void;
  /** E9: waits until the machine's phones list says this phone was let in. */
  untilApproved(): Promise<void>;
  close(): Promise<void>;
};

export async function makeE6Phone(relayUrl: string, code: string, name: string): Promise<E6Phone> {
  const pairing = parsePairing(code);
  if (!pairing.ok || pairing.value.boxKey === undefined) throw new Error('a code with a boxKey');
  const keys = makeBoxKeyPair();
  const phoneId = randomUUID();
  let held = pairing.value.secret;
  let socket: RoomSocket | null = null;
  const pinned = Uint8Array.from(Buffer.from(pairing.value.boxKey, 'base64url'));
  const bytesOf = (s: string) => Uint8Array.from(Buffer.from(s, 'base64url'));
  const current = () => {
    if (!socket) throw new Error(`${name}: not joined`);
    return socket;
  };
  let credential: WebAuthnCredential | undefined;
  const register = () =>
    phone.send({
      type: 'phone.register',
      requestId: randomUUID(),
      phoneId,
      name,
      boxKey: encodeBoxKey(keys.publicKey),
      ...(credential ? { webauthn: credential } : {}),
    });
  const phone: E6Phone = {
    phoneId,
    name,
    socket: current,
    roomId: () => roomKeys(bytesOf(held)).roomId,
    secret: () => held,
    async join() {
      const { roomId, key } = roomKeys(bytesOf(held));
      socket = await joinRoom(relayUrl, roomId, 'phone', key);
      register();
    },
    async follow() {
      const s = current();
      const rotate = await s.waitForMessage(
        (m) => m.type === 'room.rotate' && m.phoneId === phoneId,
      );
      const opened = openRoomRotate(rotate.box as string, pinned, keys.secretKey);
      if (!opened.ok) throw new Error(`${name}: room.rotate did not open (${opened.code})`);
      await s.close();
      held = opened.value.secret;
      await phone.join();
      // The machine joins the new room after boxing every rotate, so this phone may be there
      // first and its register lost (nothing is queued for an empty side): like the app (E6.2),
      // register again on the machine's first status there; only then has the phone moved.
      await current().waitForMessage((m) => m.type === 'machine.status');
      register();
    },
    send(message) {
      const text = JSON.stringify({ v: 1, ts: Date.now(), ...message });
      current().sendMessage({
        v: 1,
        type: 'phone.sealed',
        ts: Date.now(),
        phoneId,
        message: text,
        box: sealPhoneMessage(text, pinned, keys.secretKey),
      });
    },
    setCredential(webauthn) {
      credential = webauthn;
      register();
    },
    async untilApproved() {
      await current().waitForMessage(
        (m) =>
          m.type === 'phones' &&
          (m.phones as { phoneId: string; state?: string }[]).some(
            (p) => p.phoneId === phoneId && p.state === 'approved',
          ),
      );
    },
    close: async () => {
      await socket?.close();
    },
  };
  await phone.join();
  // A machine that has printed its code may still be joining the room, and the relay drops what
  // is sent to a room with no machine: once the machine shows itself (its status, sent when it
  // sees this phone), register again unless the first one was answered.
  await current().waitForMessage((m) => m.type === 'machine.status');
  if (!current().messages.some((m) => m.type === 'phones')) register();
  return phone;
}
