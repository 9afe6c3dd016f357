// Work shared by every frame of one event-loop turn. A socket's 'data' chunk carries dozens of
// frames at load; per frame, a clock read (~40–70 ns here) and an uncork with its own write
// syscall would cost more than the relay's own checks. So: one clock read per turn, and each
// socket written to is corked once and uncorked once (one writev) when the turn's work is done.
// One process.nextTick per turn does both.
import type { Timers } from './timers.ts';

/** A socket that batches its writes per turn (Connection). */
export interface Corkable {
  corked: boolean;
  readonly socket: { uncork(): void };
}

export type EventLoopTurn = {
  /** The clock, read once per turn: every frame of one turn gets the same time. */
  now(): number;
  /** Uncorks `c` at the end of this turn (the caller has corked it and set `corked`). */
  uncorkLater(c: Corkable): void;
};

export function makeEventLoopTurn(timers: Timers): EventLoopTurn {
  let scheduled = false;
  let nowMs = 0;
  let nowValid = false;
  let corked: Corkable[] = [];
  const end = () => {
    scheduled = false;
    nowValid = false;
    if (corked.length === 0) return;
    const q = corked;
    corked = [];
    for (const c of q) {
      c.corked = false;
      c.socket.uncork();
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    process.nextTick(end);
  };
  return {
    now() {
      if (!nowValid) {
        nowMs = timers.now();
        nowValid = true;
        schedule();
      }
      return nowMs;
    },
    uncorkLater(c) {
      corked.push(c);
      schedule();
    },
  };
}
