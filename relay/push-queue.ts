// H1: every outbound push request of the relay, over all rooms, goes through one queue: at most
// `maxActive` in flight, at most `maxQueued` waiting. A request that finds the queue full is
// refused at once (the caller answers push-failed), so a flood costs bounded memory and bounded
// sockets. Building a request costs CPU (RFC 8291: a fresh ECDH key pair and a shared secret,
// HKDF, AES-GCM: 1.6–2.2 ms measured here under load, 2026-12-01), so at most START_PER_TURN
// requests start per event-loop turn: a burst of hints is spread over many turns, and /healthz
// and room traffic get in between (setImmediate runs after the poll phase).
export type PushJob = () => Promise<void>;

export type PushQueue = {
  /** Runs `job` soon; false when the queue is full (the job will never run). */
  offer(job: PushJob): boolean;
  active(): number;
  queued(): number;
  /** Resolves when nothing is in flight or waiting. */
  idle(): Promise<void>;
};

export const START_PER_TURN = 1;

export function makePushQueue(limits: { maxActive: number; maxQueued: number }): PushQueue {
  // At least one in flight: with none, queued jobs would never run and idle() never resolve.
  const o = { maxActive: Math.max(1, limits.maxActive), maxQueued: limits.maxQueued };
  // Jobs not started yet, including those that will start in the next turns because a slot is
  // free: at most maxActive + maxQueued (hundreds), so shift() on it is cheap.
  const waiting: PushJob[] = [];
  let active = 0;
  let pumping = false;
  let idleWaiters: (() => void)[] = [];
  const freeSlots = () => Math.max(0, o.maxActive - active);

  const finished = () => {
    active--;
    schedule();
    if (active === 0 && waiting.length === 0) {
      const w = idleWaiters;
      idleWaiters = [];
      for (const r of w) r();
    }
  };
  const pump = () => {
    pumping = false;
    for (let n = 0; n < START_PER_TURN && active < o.maxActive; n++) {
      const job = waiting.shift();
      if (job === undefined) break;
      active++;
      // A job never rejects (push.ts catches), but a slot must come back whatever happens.
      void job()
        .catch(() => undefined)
        .finally(finished);
    }
    schedule();
  };
  function schedule() {
    if (pumping || active >= o.maxActive || waiting.length === 0) return;
    pumping = true;
    setImmediate(pump);
  }

  return {
    offer(job) {
      // Jobs about to take a free slot are not queued; only the rest count against maxQueued.
      if (waiting.length - freeSlots() >= o.maxQueued) return false;
      waiting.push(job);
      schedule();
      return true;
    },
    active: () => active,
    queued: () => Math.max(0, waiting.length - freeSlots()),
    idle() {
      if (active === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((r) => idleWaiters.push(r));
    },
  };
}
