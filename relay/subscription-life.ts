// How long a stored push subscription lives (D7, H2). It is dropped when no push-subscribe
// refreshed it for --subscription-ttl-days, when no machine joined its room for
// --subscription-machine-days, and — in a room no machine has ever been seen in — once it is
// older than --subscription-grace-sec. A machine counts as seen in a room when it joins it and,
// at every sweep, while it is still connected to it. Nothing here runs per forwarded frame:
// one store write per machine join, one sweep per interval.
import type { Logger } from 'pino';
import type { RelaySettings } from './config.ts';
import type { SubscriptionStore } from './subscriptions.ts';
import type { Timers } from './timers.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** Rooms per store call when the sweep marks connected machines' rooms (one Redis script each). */
const SEEN_BATCH = 1_000;

export type SubscriptionLife = {
  /** A machine socket joined `room` (Connection, after hello-ok). */
  machineJoined(room: string): void;
  /** The first sweep; then one every min(grace, 1 h). */
  start(): Promise<void>;
  /** Resolves when every store write and sweep started so far has settled. */
  idle(): Promise<void>;
  stop(): void;
};

export function makeSubscriptionLife(o: {
  store: SubscriptionStore;
  settings: RelaySettings;
  timers: Timers;
  log: Logger;
  /** Every room a machine socket of this process is joined to now. */
  machineRooms(): Iterable<string>;
  /** Told how many subscriptions each sweep removed (/metrics, P5). */
  expired?: (count: number) => void;
}): SubscriptionLife {
  const s = o.settings;
  let chain: Promise<void> = Promise.resolve();
  let sweepQueued = false;
  let timer: ReturnType<Timers['setInterval']> | null = null;
  const failed = (what: string) => (e: unknown) =>
    o.log.error({ error: (e as Error).message }, `${what} failed`);
  const enqueue = (job: () => Promise<void>, what: string) => {
    chain = chain.then(job).catch(failed(what));
  };

  async function sweep(): Promise<void> {
    sweepQueued = false;
    // The clock is read when the sweep runs, not when it was asked for.
    const now = o.timers.now();
    const rooms = [...new Set(o.machineRooms())];
    for (let i = 0; i < rooms.length; i += SEEN_BATCH)
      await o.store.machineSeen(rooms.slice(i, i + SEEN_BATCH), now);
    const gone = await o.store.expire({
      refreshedBeforeMs: now - s.subscriptionTtlDays * DAY_MS,
      machineBeforeMs: now - s.subscriptionMachineDays * DAY_MS,
      unseenBeforeMs: now - s.subscriptionGraceSec * 1_000,
    });
    const count = gone.stale + gone.machineAbsent + gone.neverMachine;
    o.expired?.(count);
    if (count > 0) o.log.info(gone, 'expired push subscriptions');
  }
  const requestSweep = () => {
    if (sweepQueued) return;
    sweepQueued = true;
    enqueue(sweep, 'expiring subscriptions');
  };

  return {
    machineJoined(room) {
      const now = o.timers.now();
      enqueue(async () => void (await o.store.machineSeen([room], now)), 'marking a machine seen');
    },
    async start() {
      await sweep();
      const every = Math.max(1_000, Math.min(HOUR_MS, s.subscriptionGraceSec * 1_000));
      timer = o.timers.setInterval(requestSweep, every);
    },
    async idle() {
      for (let c = chain; ; c = chain) {
        await c;
        if (c === chain) return;
      }
    },
    stop() {
      if (timer !== null) o.timers.clearInterval(timer);
    },
  };
}
