// H1: every outbound push request of the relay, over all rooms, goes through one queue: at most
// `maxActive` in flight, at most `maxQueued` waiting. A request that finds the queue full is
// refused at once (the caller answers push-failed), so a flood costs bounded memory and bounded
// sockets, and the CPU of building requests (RFC 8291 encryption) is spread over time instead of
// spent in one turn.
export type PushJob = () => Promise<void>;

export type PushQueue = {
  /** Runs `job` now or later; false when the queue is full (the job will never run). */
  offer(job: PushJob): boolean;
  active(): number;
  queued(): number;
  /** Resolves when nothing is in flight or waiting. */
  idle(): Promise<void>;
};

export function makePushQueue(o: { maxActive: number; maxQueued: number }): PushQueue {
  // A ring would save the shift, but maxQueued is small (hundreds) and shift on a short array is
  // cheap; a plain array keeps this obvious.
  const waiting: PushJob[] = [];
  let active = 0;
  let idleWaiters: (() => void)[] = [];

  const run = (job: PushJob) => {
    active++;
    // A job never rejects (push.ts catches), but a slot must come back whatever happens.
    void job()
      .catch(() => undefined)
      .finally(() => {
        active--;
        const next = waiting.shift();
        if (next) run(next);
        else if (active === 0) {
          const w = idleWaiters;
          idleWaiters = [];
          for (const r of w) r();
        }
      });
  };

  return {
    offer(job) {
      if (active < o.maxActive) {
        run(job);
        return true;
      }
      if (waiting.length >= o.maxQueued) return false;
      waiting.push(job);
      return true;
    },
    active: () => active,
    queued: () => waiting.length,
    idle() {
      if (active === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((r) => idleWaiters.push(r));
    },
  };
}
