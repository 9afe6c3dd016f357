// Every rule about time (activity coalescing, the 60 s status, the D11 window) reads the clock
// and arms timers through the one Timers type (protocol/timers.ts), so tests drive time by hand
// instead of sleeping.
import type { Timers } from '../protocol/timers.ts';
export type { TimerHandle, Timers } from '../protocol/timers.ts';

export function realTimers(): Timers {
  const live = new Map<unknown, NodeJS.Timeout>();
  let next = 1;
  const clear = (handle: { readonly id: unknown }) => {
    const t = live.get(handle.id);
    if (t !== undefined) clearTimeout(t);
    live.delete(handle.id);
  };
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
    clearTimeout: clear,
    setInterval(fn, ms) {
      const id = next++;
      live.set(id, setInterval(fn, ms));
      return { id };
    },
    clearInterval: clear,
  };
}
