// A clock tests drive by hand: time moves only when advance() is called.
import type { Clock, TimerHandle } from '../clock.ts';

export type ManualClock = Clock & {
  advance(ms: number): void;
  /** Delays currently scheduled, in ms from now. */
  pending(): number[];
};

export const makeManualClock = (start = 1_700_000_000_000): ManualClock => {
  let now = start;
  let timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  return {
    now: () => now,
    after(ms, fn): TimerHandle {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      return { cancel: () => void (t.live = false) };
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((t) => t.live && t.at <= now).sort((a, b) => a.at - b.at);
      timers = timers.filter((t) => t.live && t.at > now);
      for (const t of due) t.fn();
    },
    pending: () => timers.filter((t) => t.live).map((t) => t.at - now),
  };
};
