// A minimal machine end written in the test itself (real `ws` socket, real room keys, real
// sealing) for rules where the test must see exactly what the phone sent — or must send what no
// honest machine would (a frame sealed with the wrong key). The mock machine covers the rest.
import WebSocket from 'ws';
import {
  encodePairing,
  open,
  pairingLink,
  parsePhoneMessage,
  roomKeys,
  seal,
  toBase64Url,
  type PhoneMessage,
} from '../../protocol/index.ts';
import { randomBytes } from 'node:crypto';

export type TestMachine = {
  roomId: string;
  code: string;
  link(appUrl: string): string;
  /** Every phone message received, decrypted and parsed. */
  received: PhoneMessage[];
  /** The phone presence frames the relay sent this room's machine, in order. */
  phonePresence: boolean[];
  say(message: Record<string, unknown>): void;
  sayRaw(payload: string): void;
  waitFor(pred: (m: PhoneMessage) => boolean, timeoutMs?: number): Promise<PhoneMessage>;
  /** Until the relay has said a phone is in the room: a frame sent before reaches nobody. */
  phoneOnline(timeoutMs?: number): Promise<void>;
  connect(): Promise<void>;
  close(): Promise<void>;
};

export function makeTestMachine(relayUrl: string, name: string): TestMachine {
  const secret = new Uint8Array(randomBytes(32));
  const { roomId, key } = roomKeys(secret);
  const code = encodePairing({ v: 1, relay: relayUrl, secret: toBase64Url(secret), machine: name });
  const received: PhoneMessage[] = [];
  const phonePresence: boolean[] = [];
  const waiters = new Set<() => void>();
  let ws: WebSocket | null = null;
  // D8, as the real machine does it: its status, the snapshot and the open requests are re-sent
  // when a phone joins (status first: a phone that joined late must still learn the E1 instance).
  let status: Record<string, unknown> | undefined;
  const open_ = new Map<string, Record<string, unknown>>();
  const remember = (m: Record<string, unknown>) => {
    if (m.type === 'machine.status') status = m;
    if (m.type === 'session.snapshot') open_.set('snapshot', m);
    if (m.type === 'approval.request') open_.set(`a:${String(m.approvalId)}`, m);
    if (m.type === 'question.request') open_.set(`q:${String(m.questionId)}`, m);
    if (m.type === 'approval.closed') open_.delete(`a:${String(m.approvalId)}`);
    if (m.type === 'question.closed') open_.delete(`q:${String(m.questionId)}`);
  };

  const machine: TestMachine = {
    roomId,
    code,
    link: (appUrl) => pairingLink(appUrl, code),
    received,
    phonePresence,
    say(message) {
      remember(message);
      machine.sayRaw(seal({ v: 1, ts: Date.now(), ...message }, key));
    },
    sayRaw(payload) {
      ws?.send(JSON.stringify({ kind: 'msg', room: roomId, payload }));
    },
    waitFor(pred, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = received.find(pred);
          if (!hit) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(hit);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `${name}: no matching phone message within ${timeoutMs} ms; got ${received.map((m) => m.type).join(', ')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    phoneOnline(timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (phonePresence.at(-1) !== true) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${name}: no phone in the room within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    connect() {
      return new Promise((resolve, reject) => {
        const socket = new WebSocket(relayUrl);
        ws = socket;
        socket.once('error', reject);
        socket.on('open', () =>
          socket.send(JSON.stringify({ kind: 'hello', room: roomId, role: 'machine' })),
        );
        socket.on('message', (data) => {
          const frame = JSON.parse(String(data)) as {
            kind: string;
            payload?: string;
            role?: string;
            online?: boolean;
          };
          if (frame.kind === 'hello-ok') resolve();
          if (frame.kind === 'presence' && frame.role === 'phone') {
            phonePresence.push(frame.online === true);
            for (const w of [...waiters]) w();
          }
          if (frame.kind === 'presence' && frame.role === 'phone' && frame.online)
            for (const m of [...(status ? [status] : []), ...open_.values()])
              machine.sayRaw(seal({ v: 1, ts: Date.now(), ...m }, key));
          if (frame.kind !== 'msg' || !frame.payload) return;
          const opened = open(frame.payload, key);
          if (!opened.ok) return;
          const parsed = parsePhoneMessage(opened.value);
          if (!parsed.ok) return;
          received.push(parsed.value);
          for (const w of [...waiters]) w();
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        if (!ws || ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      });
    },
  };
  return machine;
}
