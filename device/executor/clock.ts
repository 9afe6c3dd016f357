// Every rule about time (timeoutMs, kill grace, heartbeats, backoff, retry-after) reads this
// clock, so tests can drive those rules without waiting on the wall clock.
export type TimerHandle = { readonly cancel: () => void };

export type Clock = {
  now(): number;
  /** Runs fn once after ms; cancel() before then prevents it. */
  after(ms: number, fn: () => void): TimerHandle;
};

export const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return { cancel: () => clearTimeout(t) };
  },
};

/** Resolves after ms on the given clock. */
export const delay = (clock: Clock, ms: number): Promise<void> =>
  new Promise((resolve) => clock.after(ms, resolve));
