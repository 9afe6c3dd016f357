// P10: the ping sweep, spread over the interval. Pinging every socket at one moment (10,000
// writes in one turn) stalled live traffic for that turn; instead the sockets are dealt into
// `slices` buckets as they come, and every interval/slices ms one bucket is visited. Each socket
// is still visited exactly once per interval, and a socket that has not answered the previous
// ping is still terminated on its next visit.
import type { Timers } from './timers.ts';

/** What the sweep needs of a socket: the bucket it was dealt into. */
export type Sweepable = { pingSlice: number };

export type PingSweep<T extends Sweepable> = {
  add(item: T): void;
  delete(item: T): void;
  /** How many items it holds. */
  size(): number;
  stop(): void;
};

export function makePingSweep<T extends Sweepable>(o: {
  timers: Timers;
  intervalMs: number;
  slices: number;
  visit(item: T): void;
  /** Runs once per interval, at the start of each round of slices. */
  everyInterval?(): void;
}): PingSweep<T> {
  const slices = Math.max(1, Math.min(o.slices, o.intervalMs));
  const tickMs = Math.max(1, Math.floor(o.intervalMs / slices));
  const buckets = Array.from({ length: slices }, () => new Set<T>());
  let dealt = 0;
  let next = 0;
  let size = 0;
  const timer = o.timers.setInterval(() => {
    if (next === 0) o.everyInterval?.();
    const bucket = buckets[next] as Set<T>;
    next = (next + 1) % slices;
    // visit() may terminate the socket, whose close handler deletes it from this bucket: a Set
    // visits each entry once even when entries are deleted meanwhile.
    for (const item of bucket) o.visit(item);
  }, tickMs);
  return {
    add(item) {
      item.pingSlice = dealt;
      dealt = (dealt + 1) % slices;
      (buckets[item.pingSlice] as Set<T>).add(item);
      size++;
    },
    delete(item) {
      if (buckets[item.pingSlice]?.delete(item)) size--;
    },
    size: () => size,
    stop: () => o.timers.clearInterval(timer),
  };
}
