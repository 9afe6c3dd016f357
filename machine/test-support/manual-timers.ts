import type { Timers, TimerHandle } from '../timers.ts';

/** A clock that moves only when the test says so; due timers fire in time order. */
export type ManualTimers = Timers & {
  advance(ms: number): void;
  pending(): number;
};

export function makeManualTimers(startMs = 1_700_000_000_000): ManualTimers {
  let nowMs = startMs;
  let next = 1;
  const queue = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => nowMs,
    setTimeout(fn, ms): TimerHandle {
      const id = next++;
      queue.set(id, { at: nowMs + Math.max(0, ms), fn });
      return { id };
    },
    clearTimeout(handle) {
      queue.delete(handle.id);
    },
    advance(ms) {
      const target = nowMs + ms;
      for (;;) {
        let dueId = -1;
        let dueAt = Infinity;
        for (const [id, t] of queue) {
          if (t.at <= target && t.at < dueAt) {
            dueAt = t.at;
            dueId = id;
          }
        }
        if (dueId < 0) break;
        const t = queue.get(dueId)!;
        queue.delete(dueId);
        nowMs = t.at;
        t.fn();
      }
      nowMs = target;
    },
    pending: () => queue.size,
  };
}
