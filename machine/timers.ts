// Every rule about time (activity coalescing, the 60 s status, the D11 window) reads the clock
// and arms timers through this interface, so tests drive time by hand instead of sleeping.
export type TimerHandle = { readonly id: number };

export type Timers = {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
};

export function realTimers(): Timers {
  const live = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      const t = setTimeout(() => {
        live.delete(id);
        fn();
      }, ms);
      live.set(id, t);
      return { id };
    },
    clearTimeout(handle) {
      const t = live.get(handle.id);
      if (t !== undefined) clearTimeout(t);
      live.delete(handle.id);
    },
  };
}
