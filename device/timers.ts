// Every rule about time reads the one Timers type (protocol/timers.ts) — on the executor
// timeoutMs, kill grace, heartbeats, backoff and retry-after; in the lane the handshake deadline,
// liveness (R14), the reconnect grace (R4), the chunk gap (R8), the cancel grace (R11) and the
// execution ceiling — so tests drive those rules by hand with the one manual clock
// (testkit/manual-clock.ts) instead of waiting on the wall clock.
import type { Timers } from '../protocol/timers.ts';
export type { TimerHandle, Timers } from '../protocol/timers.ts';

const wallClock = (holdsProcess: boolean): Timers => {
  const handle = (t: NodeJS.Timeout) => ({ id: holdsProcess ? t : t.unref() });
  return {
    now: () => Date.now(),
    setTimeout: (fn, ms) => handle(setTimeout(fn, ms)),
    clearTimeout: (h) => clearTimeout(h.id as NodeJS.Timeout),
    setInterval: (fn, ms) => handle(setInterval(fn, ms)),
    clearInterval: (h) => clearInterval(h.id as NodeJS.Timeout),
  };
};

/** The wall clock; a pending timer keeps the process alive (the executor's reconnect wait). */
export const realTimers: Timers = wallClock(true);

/**
 * The wall clock for a server part (the lane): its timers watch sockets and instructions, so a
 * pending one alone never keeps the host's process from exiting.
 */
export const backgroundTimers: Timers = wallClock(false);

/** Resolves after ms on the given timers. */
export const delay = (timers: Timers, ms: number): Promise<void> =>
  new Promise((resolve) => void timers.setTimeout(resolve, ms));
