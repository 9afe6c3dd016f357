// Every rule about time reads this clock — on the executor timeoutMs, kill grace, heartbeats,
// backoff and retry-after; in the lane the handshake deadline, liveness (R14), the reconnect grace
// (R4), the chunk gap (R8), the cancel grace (R11) and the execution ceiling — so tests drive
// those rules by hand (test-support/manual-clock.ts) instead of waiting on the wall clock.
export type TimerHandle = { readonly cancel: () => void };

export type Clock = {
  now(): number;
  /** Runs fn once after ms; cancel() before then prevents it. */
  after(ms: number, fn: () => void): TimerHandle;
};

/** The wall clock; a pending timer keeps the process alive (the executor's reconnect wait). */
export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/**
 * The wall clock for a server part (the lane): its timers watch sockets and instructions, so a
 * pending one alone never keeps the host's process from exiting.
 */
export const backgroundClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

/** Resolves after ms on the given clock. */
export const delay = (clock: Clock, ms: number): Promise<void> =>
  new Promise((resolve) => clock.after(ms, resolve));
