// T3: the one manual clock, for every rule about time in every part (the relay's, the machine's, the
// device lane's and executor's, the page's and its service worker's), all through the one Timers
// type of protocol/timers.ts. Nothing fires until the test calls advance(); then every timer that
// falls due within the span fires:
// - in time order; timers due at the same moment fire in the order they were created (an
//   interval keeps its place when it re-arms);
// - with the clock standing at that timer's moment while it runs (now() reads its due time);
// - a timer armed by one of them that falls due within the span fires in the same advance (a
//   re-arming heartbeat beats once per interval passed), and one cleared by them never fires.
// Only imports protocol types, so the page's tests (DOM, no Node types) compile it too.
import type { TimerHandle, Timers } from '../protocol/timers.ts';

type Entry = { id: number; at: number; every: number | null; fn: () => void };

export type ManualTimers = Timers & {
  /** Moves the clock forward ms, firing every timer due on the way (see the header for order). */
  advance(ms: number): void;
  /** How many timers are armed. */
  pending(): number;
  /** The armed timers' delays, in ms from now, soonest first. */
  delays(): number[];
  /**
   * Resolves when a timer (timeout or interval) of exactly ms is next armed: the event that tells
   * a test the code under test has got that far (e.g. the lane has read a frame and re-armed its
   * liveness timer), instead of sleeping until it probably has.
   */
  whenArmed(ms: number): Promise<void>;
};

export function makeManualTimers(startMs = 1_700_000_000_000): ManualTimers {
  let now = startMs;
  let nextId = 1;
  const entries = new Map<number, Entry>();
  let armWaiters: Array<{ ms: number; resolve: () => void }> = [];
  const add = (fn: () => void, ms: number, every: number | null): TimerHandle => {
    const id = nextId++;
    entries.set(id, { id, at: now + Math.max(0, ms), every, fn });
    const woken = armWaiters.filter((w) => w.ms === ms);
    armWaiters = armWaiters.filter((w) => w.ms !== ms);
    for (const w of woken) w.resolve();
    return { id };
  };
  const clear = (h: TimerHandle) => void entries.delete(h.id as number);
  return {
    now: () => now,
    setTimeout: (fn, ms) => add(fn, ms, null),
    setInterval: (fn, ms) => add(fn, ms, Math.max(1, ms)),
    clearTimeout: clear,
    clearInterval: clear,
    pending: () => entries.size,
    delays: () => [...entries.values()].map((e) => e.at - now).sort((a, b) => a - b),
    whenArmed: (ms) => new Promise((resolve) => armWaiters.push({ ms, resolve })),
    advance(ms) {
      const target = now + ms;
      for (;;) {
        let due: Entry | undefined;
        for (const e of entries.values()) if (e.at <= target && (!due || e.at < due.at)) due = e;
        if (!due) break;
        now = due.at;
        if (due.every === null) entries.delete(due.id);
        else due.at += due.every;
        due.fn();
      }
      now = target;
    },
  };
}
