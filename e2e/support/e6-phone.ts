// E6: one of the project's test phones with its own identity, over the real relay: a phoneId and
// an X25519 key pair, `phone.register` after every join, and `room.rotate` followed the way the
// app does it (opened only with the machine key it pinned, then the new room joined).
import { randomUUID } from 'node:crypto';
import {
  decodeBoxKey,
  encodeBoxKey,
  makeBoxKeyPair,
  openRoomRotate,
  roomKeys,
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
  close(): Promise<void>;
};

export async function makeE6Phone(
  relayUrl: string,
  secret: string,
  name: string,
): Promise<E6Phone> {
  const keys = makeBoxKeyPair();
  const phoneId = randomUUID();
  let held = secret;
  let socket: RoomSocket | null = null;
  let pinned: Uint8Array | null = null;
  const bytesOf = (s: string) => Uint8Array.from(Buffer.from(s, 'base64url'));
  const current = () => {
    if (!socket) throw new Error(`${name}: not joined`);
    return socket;
  };
  const register = () =>
    phone.send({
      type: 'phone.register',
      requestId: randomUUID(),
      phoneId,
      name,
      boxKey: encodeBoxKey(keys.publicKey),
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
      if (!pinned) {
        const status = await s.waitForMessage((m) => m.type === 'machine.status' && !!m.boxKey);
        pinned = decodeBoxKey(status.boxKey as string);
      }
      const rotate = await s.waitForMessage(
        (m) => m.type === 'room.rotate' && m.phoneId === phoneId,
      );
      const opened = openRoomRotate(rotate.box as string, pinned!, keys.secretKey);
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
      current().sendMessage({ v: 1, ts: Date.now(), ...message });
    },
    close: async () => {
      await socket?.close();
    },
  };
  await phone.join();
  // The key is pinned from the first status, as the app does.
  const status = await current().waitForMessage((m) => m.type === 'machine.status' && !!m.boxKey);
  pinned = decodeBoxKey(status.boxKey as string);
  return phone;
}
