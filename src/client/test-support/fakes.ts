// Test doubles for the client: a scheduler whose time only moves when the test says so, and a
// socket that records what the client sends and lets the test play the relay.
import { encodeFrame, type ServerFrame } from '../../../protocol/index.ts';
import type { SocketLike, Timers } from '../socket.ts';

export function makeFakeTimers(start = 1_750_000_000_000) {
  let now = start;
  let nextId = 1;
  const pending = new Map<number, { at: number; fn: () => void }>();
  const timers: Timers = {
    setTimeout(fn, ms) {
      const id = nextId++;
      pending.set(id, { at: now + Math.max(0, ms), fn });
      return id;
    },
    clearTimeout(id) {
      pending.delete(id as number);
    },
  };
  /** Runs every timer due within `ms`, in time order, moving the clock as it goes. */
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...pending.entries()]
        .filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      pending.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  return { timers, now: () => now, advance, pendingCount: () => pending.size };
}

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
