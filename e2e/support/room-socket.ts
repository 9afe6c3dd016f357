// The test's own sockets into a room over the real relay: a phone (to subscribe and dispatch)
// and a second machine-role socket that sees every phone→machine message, so a test can count
// exactly what reached the machine.
import { WebSocket, type ClientOptions } from 'ws';
import {
  encodeFrame,
  open,
  parseServerFrame,
  seal,
  type ClientFrame,
  type ServerFrame,
} from '../../protocol/index.ts';

const WAIT_TIMEOUT_MS = 15_000;

export type RoomSocket = {
  /** Every relay frame seen, and every opened inner message. */
  frames: ServerFrame[];
  messages: Array<Record<string, unknown>>;
  send(frame: ClientFrame): void;
  sendMessage(message: object): void;
  waitForMessage(match: (m: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  waitForFrame(match: (f: ServerFrame) => boolean): Promise<ServerFrame>;
  close(): Promise<void>;
};

export async function joinRoom(
  relayUrl: string,
  room: string,
  role: 'phone' | 'machine',
  key: Uint8Array,
  /** e.g. `ca` and `lookup` for a `wss://` relay on a mapped host name (e2e/tls.spec.ts). */
  options: ClientOptions = {},
): Promise<RoomSocket> {
  const ws = new WebSocket(relayUrl, options);
  const frames: ServerFrame[] = [];
  const messages: Array<Record<string, unknown>> = [];
  const listeners = new Set<() => void>();
  ws.on('message', (data) => {
    const parsed = parseServerFrame(String(data));
    if (!parsed.ok) return;
    frames.push(parsed.value);
    if (parsed.value.kind === 'msg') {
      const opened = open(parsed.value.payload, key);
      if (opened.ok) messages.push(opened.value as Record<string, unknown>);
    }
    listeners.forEach((l) => l());
  });
  const waitUntil = <T>(find: () => T | undefined, what: string) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${role} socket: no ${what} within ${WAIT_TIMEOUT_MS} ms`));
      }, WAIT_TIMEOUT_MS);
      listeners.add(check);
      check();
    });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(encodeFrame({ kind: 'hello', room, role }));
  await waitUntil(() => frames.find((f) => f.kind === 'hello-ok'), 'hello-ok');
  return {
    frames,
    messages,
    send: (frame) => ws.send(encodeFrame(frame)),
    sendMessage: (message) =>
      ws.send(encodeFrame({ kind: 'msg', room, payload: seal(message, key) })),
    waitForMessage: (match) => waitUntil(() => messages.find(match), 'matching message'),
    waitForFrame: (match) => waitUntil(() => frames.find(match), 'matching frame'),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}

/**
 * A phone in the room once the machine is there: the relay drops a message sent to a room no
 * machine has joined yet, and a machine process that has printed its pairing code may still be
 * connecting — so a first dispatch sent at hello-ok raced the machine's join and went unanswered
 * on a loaded machine. The machine's `machine.status` (sent when it sees this phone) is the proof.
 */
export async function joinMachineRoom(
  relayUrl: string,
  room: string,
  key: Uint8Array,
  options: ClientOptions = {},
): Promise<RoomSocket> {
  const phone = await joinRoom(relayUrl, room, 'phone', key, options);
  await phone.waitForMessage((m) => m.type === 'machine.status');
  return phone;
}
