// Every rule about time (hello deadline, ping, D5 silence, rate limits, subscription expiry)
// reads the clock and schedules through this, so tests can inject a manual clock.
export type TimerHandle = { readonly id: unknown };

export type Timers = {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
};

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return { id: t };
  },
  clearTimeout: (h) => clearTimeout(h.id as NodeJS.Timeout),
  setInterval: (fn, ms) => {
    const t = setInterval(fn, ms);
    t.unref();
    return { id: t };
  },
  clearInterval: (h) => clearInterval(h.id as NodeJS.Timeout),
};
