// What every connection shares: settings, clock, log and the four replaceable parts (rooms,
// presence, push decision/service, subscription store — RS1).
import type { Logger } from 'pino';
import type { RelaySettings } from './config.ts';
import type { RelayCounters } from './counters.ts';
import type { Presence } from './presence.ts';
import type { PushService } from './push.ts';
import type { Resolve } from './push-endpoint.ts';
import type { Rooms } from './rooms.ts';
import type { SubscriptionLife } from './subscription-life.ts';
import type { SubscriptionStore } from './subscriptions.ts';
import type { Timers } from './timers.ts';
import type { EventLoopTurn } from './event-loop-turn.ts';

export type Context = {
  settings: RelaySettings;
  timers: Timers;
  log: Logger;
  rooms: Rooms;
  presence: Presence;
  push: PushService;
  store: SubscriptionStore;
  /** Machine joins keep a room's subscriptions alive (H2). */
  subscriptionLife: SubscriptionLife;
  /** The IP key as the subscription store keeps it (subscribe.ts makeIpTag). */
  ipTag: (ip: string) => string;
  unsafeOrigins: ReadonlySet<string>;
  resolve: Resolve;
  /** The per-turn clock and write batching (event-loop-turn.ts). */
  turn: EventLoopTurn;
  /** Plain integers for /metrics (P5), read only at scrape time. */
  counters: RelayCounters;
  /**
   * Runs `fn` once the event loop has read every socket that is readable now (after a whole
   * poll phase). P9: a deadline judged there never refuses bytes that had already arrived and
   * waited only because a busy loop ran the timer first.
   */
  afterReads(fn: () => void): void;
};
