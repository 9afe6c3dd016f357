import { WebSocket } from 'ws';
import {
  encodeFrame,
  open,
  parsePairing,
  parseServerFrame,
  roomKeys,
  seal,
  type Role,
} from '../../protocol/index.ts';

// E9: the attacker of the identity tests — a raw client that holds nothing but a copied pairing
// code. It joins the code's room in either role (the relay cannot tell a copy from the original),
// seals what it wants with the room key, and reads every payload it can open.

export type RoomClient = {
  readonly roomId: string;
  /** Every inner object it could open, in order. */
  readonly heard: unknown[];
  /** Seals any object with the room key and sends it. */
  say(value: object): void;
  close(): Promise<void>;
};

export async function joinWithCode(
  relayUrl: string,
  code: string,
  role: Role,
): Promise<RoomClient> {
  const pairing = parsePairing(code);
  if (!pairing.ok) throw new Error(`bad pairing code: ${pairing.code}`);
  const { roomId, key } = roomKeys(pairing.value.secretBytes);
  const heard: unknown[] = [];
  const ws = new WebSocket(relayUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => ws.send(encodeFrame({ kind: 'hello', room: roomId, role })));
    ws.on('message', (data) => {
      const f = parseServerFrame(data.toString());
      if (!f.ok) return;
      if (f.value.kind === 'hello-ok') resolve();
      if (f.value.kind === 'msg') {
        const opened = open(f.value.payload, key);
        if (opened.ok) heard.push(opened.value);
      }
    });
  });
  return {
    roomId,
    heard,
    say: (value) => ws.send(encodeFrame({ kind: 'msg', room: roomId, payload: seal(value, key) })),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
