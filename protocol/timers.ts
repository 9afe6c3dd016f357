// The one timer interface of every rule about time: the relay's (hello deadline, ping, D5
// silence, rate limits, expiry), the machine's (activity coalescing, 60 s status, D11 window), the
// device lane's and executor's (handshake deadline, R14 liveness and heartbeats, R4/R11/R15
// graces, R8 chunk gap, timeouts, backoff) and the page's and its service worker's (deadlines,
// reconnect, write delays). They read the clock and arm timers only through it, so tests drive
// time by hand with one manual clock (testkit/manual-clock.ts) instead of sleeping. Structural and
// runtime-free, so every folder may import it.
export type TimerHandle = { readonly id: unknown };

export type Timers = {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
};

/** The slice the page and its service worker use: they arm deadlines and read time elsewhere. */
export type Timeouts = Pick<Timers, 'setTimeout' | 'clearTimeout'>;
