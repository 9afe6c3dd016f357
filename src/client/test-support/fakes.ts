// A test double for the client: a socket that records what the client sends and lets the test
// play the relay. (Time is the one manual clock, testkit/manual-clock.ts.)
import { encodeFrame, type ServerFrame } from '../../../protocol/index.ts';
import type { SocketLike } from '../socket.ts';

export class FakeSocket implements SocketLike {
  readyState = 0;
  sent: string[] = [];
  closedWith: { code?: number; reason?: string } | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    if (this.readyState !== 1) throw new Error('send on a socket that is not open');
    this.sent.push(data);
  }
  close(code?: number, reason?: string) {
    this.closedWith = { code, reason };
    this.readyState = 3;
  }
  // The relay's side:
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(frame: ServerFrame | string) {
    this.onmessage?.({ data: typeof frame === 'string' ? frame : encodeFrame(frame) });
  }
  drop() {
    this.readyState = 3;
    this.onclose?.({});
  }
  frames(): Record<string, unknown>[] {
    return this.sent.map((s) => JSON.parse(s) as Record<string, unknown>);
  }
}

export function makeSocketFactory() {
  const sockets: FakeSocket[] = [];
  return {
    sockets,
    factory: (url: string) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    last: () => {
      const s = sockets.at(-1);
      if (!s) throw new Error('no socket was opened');
      return s;
    },
  };
}
