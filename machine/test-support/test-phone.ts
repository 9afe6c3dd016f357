import { WebSocket } from 'ws';
import {
  encodeFrame,
  open,
  parseMachineMessage,
  parsePairing,
  parseServerFrame,
  roomKeys,
  seal,
  type ClientFrame,
  type MachineMessage,
  type PhoneMessage,
  type ServerFrame,
} from '../../protocol/index.ts';

// A phone built only from protocol/ over `ws`: joins the room of a pairing code, opens what the
// machine sends, seals what it sends back. Reusable by any Node test that needs a phone.

export type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type PhoneSend = DistributiveOmit<PhoneMessage, 'v' | 'ts'> & { ts?: number };

export type TestPhone = {
  readonly roomId: string;
  readonly key: Uint8Array;
  /** Every machine message opened, in order. */
  readonly messages: MachineMessage[];
  /** Every relay frame, in order (hello-ok, presence, error, msg). */
  readonly frames: ServerFrame[];
  /** Payloads that failed to open (should stay empty). */
  readonly undecryptable: string[];
  send(message: PhoneSend): void;
  /** Sends an arbitrary sealed object (for unknown types, wrong directions, …). */
  sendSealed(value: object): void;
  sendPayload(payload: string): void;
  /** A relay frame as is (push-subscribe, push-unsubscribe). */
  sendFrame(frame: ClientFrame): void;
  waitFor<T extends MachineMessage>(
    pred: (m: MachineMessage) => m is T,
    timeoutMs?: number,
    from?: number,
  ): Promise<T>;
  waitFor(
    pred: (m: MachineMessage) => boolean,
    timeoutMs?: number,
    from?: number,
  ): Promise<MachineMessage>;
  waitForFrame(pred: (f: ServerFrame) => boolean, timeoutMs?: number): Promise<ServerFrame>;
  /** Resolves when nothing matching arrived within `ms` (used only to prove an absence). */
  close(): Promise<void>;
};

export async function makeTestPhone(options: {
  relayUrl: string;
  pairingCode: string;
  now?: () => number;
}): Promise<TestPhone> {
  const pairing = parsePairing(options.pairingCode);
  if (!pairing.ok) throw new Error(`bad pairing code: ${pairing.code}`);
  const { roomId, key } = roomKeys(pairing.value.secretBytes);
  const now = options.now ?? Date.now;
  const messages: MachineMessage[] = [];
  const frames: ServerFrame[] = [];
  const undecryptable: string[] = [];
  const waiters = new Set<() => void>();
  const ws = new WebSocket(options.relayUrl);
  ws.on('message', (data) => {
    const parsed = parseServerFrame(data.toString());
    if (!parsed.ok) return;
    frames.push(parsed.value);
    if (parsed.value.kind === 'msg') {
      const opened = open(parsed.value.payload, key);
      if (!opened.ok) undecryptable.push(parsed.value.payload);
      else {
        const m = parseMachineMessage(opened.value);
        if (m.ok) messages.push(m.value);
        else throw new Error(`the machine sent an invalid message: ${m.message}`);
      }
    }
    for (const w of [...waiters]) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      ws.send(encodeFrame({ kind: 'hello', room: roomId, role: 'phone' }));
    });
    ws.once('error', reject);
    const check = () => {
      if (frames.some((f) => f.kind === 'hello-ok')) {
        waiters.delete(check);
        resolve();
      }
    };
    waiters.add(check);
  });

  function wait<T>(find: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const hit = find();
      if (hit !== undefined) return resolve(hit);
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(
          new Error(
            `timed out waiting for ${what}; got: ${messages.map((m) => m.type).join(', ')}`,
          ),
        );
      }, timeoutMs);
      const check = () => {
        const h = find();
        if (h !== undefined) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(h);
        }
      };
      waiters.add(check);
    });
  }

  const sendPayload = (payload: string) =>
    ws.send(encodeFrame({ kind: 'msg', room: roomId, payload }));
  return {
    roomId,
    key,
    messages,
    frames,
    undecryptable,
    send: (m) => sendPayload(seal({ v: 1, ts: now(), ...m }, key)),
    sendSealed: (value) => sendPayload(seal(value, key)),
    sendPayload,
    sendFrame: (frame) => ws.send(encodeFrame(frame)),
    waitFor: ((pred: (m: MachineMessage) => boolean, timeoutMs = 5000, from = 0) =>
      wait(
        () => messages.slice(from).find(pred),
        timeoutMs,
        'a machine message',
      )) as TestPhone['waitFor'],
    waitForFrame: (pred, timeoutMs = 5000) =>
      wait(() => frames.find(pred), timeoutMs, 'a relay frame'),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}
