// Every rule about time (hello deadline, ping, D5 silence, rate limits, subscription expiry)
// reads the clock and schedules through the one Timers type (protocol/timers.ts), so tests can
// inject a manual clock.
import type { Timers } from '../protocol/timers.ts';
export type { TimerHandle, Timers } from '../protocol/timers.ts';

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
