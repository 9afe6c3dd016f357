// P5: what the relay counts for the operator's view. Plain integers bumped at a few points
// (a field add on the forwarding path, nothing else there) and read only when /metrics is
// scraped (metrics.ts), so counting costs the hot path a store, not a library call. No label
// ever holds a room id, an endpoint or an address: only these closed sets.
import { RELAY_ERROR_CODES, type RelayErrorCode } from '../protocol/index.ts';
import type { PushSender } from './push-sender.ts';

/** Every configured limit a client can run into (docs/relay.md "Limits"), as metric labels. */
export const LIMITS = {
  helloDeadline: 'hello-deadline',
  msgRate: 'msg-rate',
  roomsPerSocket: 'rooms-per-socket',
  phonesPerRoom: 'phones-per-room',
  machinesPerRoom: 'machines-per-room',
  connectionsPerIp: 'connections-per-ip',
  connections: 'connections',
  /** Accepted sockets still sending their first request's headers (P8). */
  handshakes: 'handshakes',
  subscriptionsPerRoom: 'subscriptions-per-room',
  subscriptionsPerIp: 'subscriptions-per-ip',
  subscriptions: 'subscriptions',
  /** Per room or per machine IP (H1): the refusal's wording says which. */
  pushRate: 'push-rate',
  bufferedBytes: 'buffered-bytes',
  pingTimeout: 'ping-timeout',
} as const;
export type LimitName = (typeof LIMITS)[keyof typeof LIMITS];

/** Why an upgrade got no WebSocket (the connection cap is a limit hit as well). */
export const UPGRADE_REFUSALS = {
  notFound: 'not-found',
  full: 'full',
  closing: 'closing',
} as const;
export type UpgradeRefusal = (typeof UPGRADE_REFUSALS)[keyof typeof UPGRADE_REFUSALS];

const zeros = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export type RelayCounters = {
  framesIn: number;
  bytesIn: number;
  framesOut: number;
  bytesOut: number;
  connectionsOpened: number;
  refusals: Record<RelayErrorCode, number>;
  limits: Record<LimitName, number>;
  upgradesRefused: Record<UpgradeRefusal, number>;
  pushesSent: number;
  pushesFailed: number;
  /** Removed because the push service answered 404/410 (D7). */
  subscriptionsGone: number;
  /** Removed by the sweep (D7, H2): not refreshed within the TTL, no machine joined the room for
   * the machine window, or none ever did within the grace. */
  subscriptionsStale: number;
  /** Set by metrics.ts while /metrics is on: each push request's duration in seconds. */
  observePush: ((seconds: number) => void) | null;
};

export function makeCounters(): RelayCounters {
  return {
    framesIn: 0,
    bytesIn: 0,
    framesOut: 0,
    bytesOut: 0,
    connectionsOpened: 0,
    refusals: zeros(Object.values(RELAY_ERROR_CODES)),
    limits: zeros(Object.values(LIMITS)),
    upgradesRefused: zeros(Object.values(UPGRADE_REFUSALS)),
    pushesSent: 0,
    pushesFailed: 0,
    subscriptionsGone: 0,
    subscriptionsStale: 0,
    observePush: null,
  };
}

/**
 * The push sender, counted: every request's outcome and duration. Wrapping the sender keeps
 * the push service itself (push.ts) free of metrics code. A subscription is removed on 404/410
 * (D7), so those count as gone as well as failed.
 */
export function countingPushSender(send: PushSender, c: RelayCounters): PushSender {
  return async (req) => {
    const started = performance.now();
    const done = () => c.observePush?.((performance.now() - started) / 1_000);
    try {
      const res = await send(req);
      done();
      if (res.statusCode >= 200 && res.statusCode < 300) c.pushesSent++;
      else {
        c.pushesFailed++;
        if (res.statusCode === 404 || res.statusCode === 410) c.subscriptionsGone++;
      }
      return res;
    } catch (e) {
      done();
      c.pushesFailed++;
      throw e;
    }
  };
}
