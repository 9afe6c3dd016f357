// A clock tests drive by hand: time moves only when advance() is called.
import type { Clock, TimerHandle } from '../clock.ts';

export type ManualClock = Clock & {
  advance(ms: number): void;
  /** Delays currently scheduled, in ms from now. */
  pending(): number[];
  /**
   * Resolves when a timer of exactly ms is next armed: the event that tells a test the code under
   * test has got that far (e.g. the lane has read a frame and re-armed its liveness timer).
   */
  whenArmed(ms: number): Promise<void>;
};

export const makeManualClock = (start = 1_700_000_000_000): ManualClock => {
  let now = start;
  let timers: Array<{ at: number; fn: () => void; live: boolean }> = [];
  let armWaiters: Array<{ ms: number; resolve: () => void }> = [];
  return {
    now: () => now,
    after(ms, fn): TimerHandle {
      const t = { at: now + ms, fn, live: true };
      timers.push(t);
      const woken = armWaiters.filter((w) => w.ms === ms);
      armWaiters = armWaiters.filter((w) => w.ms !== ms);
      for (const w of woken) w.resolve();
      return { cancel: () => void (t.live = false) };
    },
    advance(ms) {
      now += ms;
      const due = timers.filter((t) => t.live && t.at <= now).sort((a, b) => a.at - b.at);
      timers = timers.filter((t) => t.live && t.at > now);
      for (const t of due) t.fn();
    },
    pending: () => timers.filter((t) => t.live).map((t) => t.at - now),
    whenArmed: (ms) => new Promise((resolve) => armWaiters.push({ ms, resolve })),
  };
};
