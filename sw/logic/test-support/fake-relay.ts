// A relay stand-in on a real loopback socket for the worker's socket logic: it answers hello like
// the relay (hello-ok in order, with the machine count the test chooses) and lets the test play
// the machine. The real relay and mock machine are exercised in e2e/push-*.spec.ts.
import { WebSocket, WebSocketServer, type WebSocket as WsSocket } from 'ws';
import { open, parsePhoneMessage, type PhoneMessage } from '../../../protocol/index.ts';
import type { SocketFactory } from '../socket.ts';

export type FakeRelay = {
  url: string;
  /** Phone messages the "machine" received, opened with the room key. */
  received: PhoneMessage[];
  /** Every frame a phone sent, parsed. */
  frames: Array<Record<string, unknown>>;
  nextMessage(): Promise<PhoneMessage>;
  /** Resolves once `count` frames have arrived in total. */
  framesSeen(count: number): Promise<void>;
  sendToPhone(frame: object): void;
  closed(): Promise<void>;
  stop(): Promise<void>;
};

const running = new Set<FakeRelay>();
export const stopAllFakeRelays = () => Promise.all([...running].map((r) => r.stop()));

export async function startFakeRelay(options: {
  key?: Uint8Array;
  machinesPresent: number;
}): Promise<FakeRelay> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const address = wss.address();
  if (address === null || typeof address === 'string') throw new Error('unexpected address');
  const received: PhoneMessage[] = [];
  const frames: Array<Record<string, unknown>> = [];
  const messageWaiters: Array<(m: PhoneMessage) => void> = [];
  const frameWaiters: Array<{ count: number; resolve: () => void }> = [];
  let phone: WsSocket | null = null;
  let onClosed: () => void = () => {};
  const closed = new Promise<void>((r) => (onClosed = r));
  wss.on('connection', (socket) => {
    phone = socket;
    socket.on('close', () => onClosed());
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      frames.push(frame);
      for (const w of frameWaiters.filter((w) => frames.length >= w.count)) {
        frameWaiters.splice(frameWaiters.indexOf(w), 1);
        w.resolve();
      }
      if (frame.kind === 'hello') {
        const peers = { machine: options.machinesPresent, phone: 1 };
        socket.send(JSON.stringify({ kind: 'hello-ok', peers }));
      } else if (frame.kind === 'msg' && options.key && typeof frame.payload === 'string') {
        const opened = open(frame.payload, options.key);
        if (!opened.ok) throw new Error(`the machine could not open it: ${opened.code}`);
        const parsed = parsePhoneMessage(opened.value);
        if (!parsed.ok) throw new Error(parsed.message);
        received.push(parsed.value);
        messageWaiters.shift()?.(parsed.value);
      }
    });
  });
  const relay: FakeRelay = {
    url: `ws://127.0.0.1:${address.port}`,
    received,
    frames,
    nextMessage: () => new Promise((r) => messageWaiters.push(r)),
    framesSeen: (count) =>
      frames.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => frameWaiters.push({ count, resolve })),
    sendToPhone: (frame) => phone?.send(JSON.stringify(frame)),
    closed: () => closed,
    stop: () =>
      new Promise((r) => {
        running.delete(relay);
        for (const c of wss.clients) c.terminate();
        wss.close(() => r());
      }),
  };
  running.add(relay);
  return relay;
}

export const nodeSocket: SocketFactory = (url) =>
  new WebSocket(url) as unknown as ReturnType<SocketFactory>;
