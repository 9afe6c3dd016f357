// The one manual clock for rules about time (the relay's and the machine's, through the one
// Timers type of protocol/timers.ts): nothing fires until the test calls advance(), and then every
// due timer fires in time order, the clock standing at its moment.
import type { TimerHandle, Timers } from '../protocol/timers.ts';

type Entry = { id: number; at: number; every: number | null; fn: () => void };

export type ManualTimers = Timers & {
  /** Moves the clock forward, firing every due timer in time order. */
  advance(ms: number): void;
  pending(): number;
};

export function makeManualTimers(startMs = 1_700_000_000_000): ManualTimers {
  let now = startMs;
  let nextId = 1;
  const entries = new Map<number, Entry>();
  const add = (fn: () => void, ms: number, every: number | null): TimerHandle => {
    const id = nextId++;
    entries.set(id, { id, at: now + Math.max(0, ms), every, fn });
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
