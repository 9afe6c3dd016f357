// P5: `GET <path>/metrics` in Prometheus text format (prom-client), on only with --metrics.
// prom-client is imported dynamically here, so a relay without --metrics never loads it — also
// as the esbuild bundle `npm run relay` runs, which hoists a static import of an external
// package to the top of the bundle even when the importing module is loaded lazily.
// Counters are plain integers the relay bumps (counters.ts); here they are copied into
// prom-client's metrics when a scrape asks, and gauges are computed from the open sockets then.
// Labels come only from closed sets (role, error code, limit, reason, outcome): never a room id,
// an endpoint or an address.
import type { Role } from '../protocol/index.ts';
import type { RelayCounters } from './counters.ts';

/** What a scrape needs to know about one open socket: the roles it joined rooms in. */
export type SocketView = { readonly joined: ReadonlyArray<{ room: string; role: Role }> | null };

export type MetricsSource = {
  counters: RelayCounters;
  sockets: () => Iterable<SocketView>;
  /** --max-connections, so an alert can compare the connections with the cap. */
  maxConnections: number;
  /** With --redis: null while Redis answers, else why not. Absent without --redis. */
  redisHealth?: () => string | null;
};

export type RelayMetrics = {
  contentType: string;
  render(): Promise<string>;
  close(): void;
};

/** Push request durations: a push service answers in tens to hundreds of ms, times out at 10 s. */
const PUSH_SECONDS_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const PREFIX = 'dsh_relay_';

export async function makeRelayMetrics(src: MetricsSource): Promise<RelayMetrics> {
  const { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } =
    await import('prom-client');
  const registry = new Registry();
  const c = src.counters;
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  /** A counter whose value is read from the relay's own integers at scrape time. */
  const counted = (name: string, help: string, read: () => number) =>
    new Counter({
      name: PREFIX + name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  const countedBy = <L extends string>(
    name: string,
    help: string,
    label: L,
    read: () => Record<string, number>,
  ) =>
    new Counter({
      name: PREFIX + name,
      help,
      labelNames: [label],
      registers,
      collect() {
        this.reset();
        for (const [k, v] of Object.entries(read())) this.inc({ [label]: k } as never, v);
      },
    });

  new Gauge({
    name: `${PREFIX}connections`,
    help: 'open WebSocket connections by the role they joined rooms in ("none": no hello yet; a socket in rooms of both roles counts in both)',
    labelNames: ['role'],
    registers,
    collect() {
      const n = { machine: 0, phone: 0, none: 0 };
      for (const s of src.sockets()) {
        if (s.joined === null || s.joined.length === 0) n.none++;
        else {
          if (s.joined.some((j) => j.role === 'machine')) n.machine++;
          if (s.joined.some((j) => j.role === 'phone')) n.phone++;
        }
      }
      for (const [role, v] of Object.entries(n)) this.set({ role }, v);
    },
  });
  new Gauge({
    name: `${PREFIX}max_connections`,
    help: 'the connection cap (--max-connections); upgrades beyond it get 503',
    registers,
    collect() {
      this.set(src.maxConnections);
    },
  });
  new Gauge({
    name: `${PREFIX}rooms`,
    help: 'rooms with at least one socket of this role on this process',
    labelNames: ['role'],
    registers,
    collect() {
      const rooms = { machine: new Set<string>(), phone: new Set<string>() };
      for (const s of src.sockets()) for (const j of s.joined ?? []) rooms[j.role].add(j.room);
      for (const role of ['machine', 'phone'] as const) this.set({ role }, rooms[role].size);
    },
  });
  counted('connections_opened_total', 'WebSocket connections accepted', () => c.connectionsOpened);
  counted('frames_received_total', 'frames received from clients', () => c.framesIn);
  counted('received_bytes_total', 'bytes of frames received from clients', () => c.bytesIn);
  counted(
    'frames_sent_total',
    'frames sent to clients (forwarded and the relay’s own)',
    () => c.framesOut,
  );
  counted('sent_bytes_total', 'bytes of frames sent to clients', () => c.bytesOut);
  countedBy('refusals_total', 'error frames sent, by code', 'code', () => c.refusals);
  countedBy(
    'limit_hits_total',
    'times a configured limit refused or closed something, by limit',
    'limit',
    () => c.limits,
  );
  countedBy(
    'upgrades_refused_total',
    'WebSocket upgrades answered without a socket, by reason',
    'reason',
    () => c.upgradesRefused,
  );
  counted(
    'pushes_sent_total',
    'Web Push requests the push service accepted (2xx)',
    () => c.pushesSent,
  );
  counted(
    'pushes_failed_total',
    'Web Push requests refused (non-2xx) or failed (network, timeout)',
    () => c.pushesFailed,
  );
  countedBy(
    'push_subscriptions_expired_total',
    'push subscriptions removed: "gone" (push service said 404/410), "stale" (swept: not refreshed within the TTL, or no machine joined the room within its window)',
    'reason',
    () => ({ gone: c.subscriptionsGone, stale: c.subscriptionsStale }),
  );
  const pushSeconds = new Histogram({
    name: `${PREFIX}push_duration_seconds`,
    help: 'duration of one Web Push request, sent or failed',
    buckets: PUSH_SECONDS_BUCKETS,
    registers,
  });
  c.observePush = (s) => pushSeconds.observe(s);
  const redisHealth = src.redisHealth;
  if (redisHealth !== undefined)
    new Gauge({
      name: `${PREFIX}redis_up`,
      help: '1 while this replica reaches Redis (/healthz is 503 otherwise)',
      registers,
      collect() {
        this.set(redisHealth() === null ? 1 : 0);
      },
    });

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    close() {
      c.observePush = null;
      registry.clear();
    },
  };
}
