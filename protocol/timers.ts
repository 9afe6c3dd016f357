// The one timer interface of the Node parts' rules about time (the relay's hello deadline, ping,
// D5 silence, rate limits and expiry; the machine's activity coalescing, 60 s status and D11
// window): they read the clock and arm timers only through it, so tests drive time by hand with
// one manual clock (testkit/manual-clock.ts) instead of sleeping. Structural and runtime-free, so
// every folder may import it.
export type TimerHandle = { readonly id: unknown };

export type Timers = {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
};
