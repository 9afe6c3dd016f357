// P7: every relay setting in ONE table — name (the key), flag, environment variable, default,
// parser and help. Parsing and `--help` (config.ts), startRelay's defaults (server.ts) and the two
// tables of docs/relay.md (config-doc.ts) are all made from it, so they cannot drift; a test
// (config.test.ts) fails when the docs' tables differ from the generated ones.
import { PING_INTERVAL_MS } from '../protocol/index.ts';
import { parseBasePath } from './base-path.ts';

export type Parsed<T> = { ok: true; value: T } | { ok: false; message?: string };

/** How a flag takes its value. */
export const FLAG_FORMS = {
  /** `--x v` or `--x=v` */
  value: 'value',
  /** `--x`, `--no-x` (or `--x=on|off`) */
  switch: 'switch',
  /** `--x v` again and again; the environment variable is comma-separated */
  repeatable: 'repeatable',
} as const;
export type FlagForm = (typeof FLAG_FORMS)[keyof typeof FLAG_FORMS];

export type Option<T> = {
  flag: string;
  env: string;
  default: T;
  parse(raw: string): Parsed<T>;
  form: FlagForm;
  /** The default as --help and the docs show it. */
  shown: string;
  /** One text for --help and the docs (backticks are dropped in --help). */
  help: string;
  /** A limit (D2, D3, H1, H2): listed in the docs' Limits table with what happens over it. */
  over?: string;
};

type Base = { flag: string; env: string; help: string; over?: string };

const int = (o: Base & { default: number }): Option<number> => ({
  ...o,
  form: FLAG_FORMS.value,
  shown: String(o.default),
  parse: (raw) => (/^\d+$/.test(raw) ? { ok: true, value: Number(raw) } : { ok: false }),
});
const text = (o: Base & { default: string }): Option<string> => ({
  ...o,
  form: FLAG_FORMS.value,
  shown: o.default,
  parse: (raw) => ({ ok: true, value: raw }),
});
const optional = (o: Base): Option<string | undefined> => ({
  ...o,
  default: undefined,
  form: FLAG_FORMS.value,
  shown: 'none',
  parse: (raw) => ({ ok: true, value: raw }),
});
const onOff = (o: Base & { default: boolean }): Option<boolean> => ({
  ...o,
  form: FLAG_FORMS.switch,
  shown: o.default ? 'on' : 'off',
  parse: (raw) =>
    ['1', 'true', 'yes', 'on'].includes(raw)
      ? { ok: true, value: true }
      : ['0', 'false', 'no', 'off'].includes(raw)
        ? { ok: true, value: false }
        : { ok: false },
});
const list = (o: Base): Option<string[]> => ({
  ...o,
  default: [],
  form: FLAG_FORMS.repeatable,
  shown: 'none',
  parse: (raw) => ({
    ok: true,
    value: raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  }),
});
const basePath = (o: Base & { default: string }): Option<string> => ({
  ...o,
  form: FLAG_FORMS.value,
  shown: o.default,
  parse: (raw) => {
    const p = parseBasePath(raw);
    return p.ok ? p : { ok: false, message: p.message };
  },
});

export const OPTIONS = {
  host: text({
    flag: 'host',
    env: 'RELAY_HOST',
    default: '127.0.0.1',
    help: 'address to listen on',
  }),
  port: int({ flag: 'port', env: 'RELAY_PORT', default: 8787, help: 'port (0 picks a free one)' }),
  path: basePath({
    flag: 'path',
    env: 'RELAY_PATH',
    default: '/',
    help: 'base path of the WebSocket, `/healthz`, `/vapid` and `/metrics` (P1): `--path /relay` lets one host name serve the app at `/` and the relay at `/relay` behind one proxy and one certificate; `/relay` and `/relay/` both take the upgrade, everything outside the base is 404',
  }),
  metrics: onOff({
    flag: 'metrics',
    env: 'RELAY_METRICS',
    default: false,
    help: 'serve Prometheus metrics at `<path>/metrics` (P5); keep that route off the public proxy (`deploy/Caddyfile` answers it 404)',
  }),
  dataDir: text({
    flag: 'data-dir',
    env: 'RELAY_DATA_DIR',
    default: '.data/relay',
    help: 'VAPID keys and the subscription database; created owner-only (0700, files 0600)',
  }),
  vapidSubject: optional({
    flag: 'vapid-subject',
    env: 'RELAY_VAPID_SUBJECT',
    help: '`mailto:` or `https:` contact the push services require; without it Web Push is off and machines get `push-disabled`',
  }),
  logLevel: text({
    flag: 'log-level',
    env: 'RELAY_LOG_LEVEL',
    default: 'info',
    help: 'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `silent`',
  }),
  unsafeAllowPushOrigins: list({
    flag: 'unsafe-allow-push-origin',
    env: 'RELAY_UNSAFE_ALLOW_PUSH_ORIGINS',
    help: 'TESTS ONLY: push endpoints on this origin (plain `http` included) skip the D4 endpoint checks; repeatable, env comma-separated; logged as a warning at start',
  }),
  rateLimits: onOff({
    flag: 'rate-limits',
    env: 'RELAY_RATE_LIMITS',
    default: true,
    help: 'the message and push rate limits (off for benchmarks and trusted private deployments)',
  }),
  trustProxy: onOff({
    flag: 'trust-proxy',
    env: 'RELAY_TRUST_PROXY',
    default: false,
    help: 'count connections per IP by the last `X-Forwarded-For` entry (behind a reverse proxy) instead of the TCP peer',
  }),
  helloDeadlineMs: int({
    flag: 'hello-deadline-ms',
    env: 'RELAY_HELLO_DEADLINE_MS',
    default: 5_000,
    help: 'a socket must send its first valid `hello` within this (D2)',
    over: '`bad-hello`, close 1008',
  }),
  pingIntervalMs: int({
    flag: 'ping-interval-ms',
    env: 'RELAY_PING_INTERVAL_MS',
    default: PING_INTERVAL_MS,
    help: 'WebSocket ping interval: each socket is pinged once per interval',
    over: 'a socket that has not answered the previous ping is terminated',
  }),
  pingSlices: int({
    flag: 'ping-slices',
    env: 'RELAY_PING_SLICES',
    default: 100,
    help: 'the ping sweep is split into this many slices, one every interval / slices ms, so each socket is still pinged once per interval but never all in one turn (P10); 1 pings every socket at the same moment',
  }),
  maxRoomsPerSocket: int({
    flag: 'max-rooms-per-socket',
    env: 'RELAY_MAX_ROOMS_PER_SOCKET',
    default: 32,
    help: 'rooms one socket may join',
    over: '`limit`',
  }),
  maxPhonesPerRoom: int({
    flag: 'max-phones-per-room',
    env: 'RELAY_MAX_PHONES_PER_ROOM',
    default: 8,
    help: 'phone sockets per room',
    over: '`limit`; a socket that has no room yet is then closed 1008',
  }),
  maxMachinesPerRoom: int({
    flag: 'max-machines-per-room',
    env: 'RELAY_MAX_MACHINES_PER_ROOM',
    default: 2,
    help: 'machine sockets per room',
    over: 'as above',
  }),
  maxConnectionsPerIp: int({
    flag: 'max-connections-per-ip',
    env: 'RELAY_MAX_CONNECTIONS_PER_IP',
    default: 32,
    help: 'open sockets per client IP (IPv6: per /64), counted from the TCP accept on (P8; with `--trust-proxy` from the request headers on)',
    over: 'the first socket over the cap is upgraded and told `limit`, close 1008; any further one is closed at accept (P8)',
  }),
  maxConnections: int({
    flag: 'max-connections',
    env: 'RELAY_MAX_CONNECTIONS',
    default: 10_000,
    help: 'WebSocket connections in total',
    over: 'the upgrade is answered `503`',
  }),
  maxHandshakes: int({
    flag: 'max-handshakes',
    env: 'RELAY_MAX_HANDSHAKES',
    default: 1_024,
    help: "accepted sockets whose first request's headers have not all arrived yet, in total (P8): slow clients from many addresses cannot take every descriptor",
    over: 'a new socket is closed at accept',
  }),
  msgRatePerSec: int({
    flag: 'msg-rate-per-sec',
    env: 'RELAY_MSG_RATE_PER_SEC',
    default: 20,
    help: 'frames per second per socket (token bucket refill)',
    over: '`limit`',
  }),
  msgBurst: int({
    flag: 'msg-burst',
    env: 'RELAY_MSG_BURST',
    default: 100,
    help: 'frame burst per socket (token bucket size)',
    over: '',
  }),
  maxSubscriptionsPerRoom: int({
    flag: 'max-subscriptions-per-room',
    env: 'RELAY_MAX_SUBSCRIPTIONS_PER_ROOM',
    default: 10,
    help: 'stored push subscriptions per room',
    over: '`limit` for a new endpoint (refreshing a stored one always works)',
  }),
  maxSubscriptionsPerIp: int({
    flag: 'max-subscriptions-per-ip',
    env: 'RELAY_MAX_SUBSCRIPTIONS_PER_IP',
    default: 100,
    help: 'stored push subscriptions created from one IP over all rooms (H2; IPv6: per /64)',
    over: '`limit` "at most N push subscriptions per IP" for a new endpoint; an entry counts against the IP that created it for as long as it is stored',
  }),
  maxSubscriptions: int({
    flag: 'max-subscriptions',
    env: 'RELAY_MAX_SUBSCRIPTIONS',
    default: 50_000,
    help: 'stored push subscriptions in total (H2)',
    over: '`limit` "this relay holds its maximum of N push subscriptions" for a new endpoint',
  }),
  pushRatePerMin: int({
    flag: 'push-rate-per-min',
    env: 'RELAY_PUSH_RATE_PER_MIN',
    default: 10,
    help: 'pushes per minute per room (token bucket refill)',
    over: '`limit` "push rate limit: N per minute per room" to the machine',
  }),
  pushBurst: int({
    flag: 'push-burst',
    env: 'RELAY_PUSH_BURST',
    default: 20,
    help: 'push burst per room',
    over: '',
  }),
  pushRatePerMinPerIp: int({
    flag: 'push-rate-per-min-per-ip',
    env: 'RELAY_PUSH_RATE_PER_MIN_PER_IP',
    default: 30,
    help: 'pushes per minute from one machine IP over all its rooms (H1; IPv6: per /64)',
    over: '`limit` "push rate limit: N per minute per IP" (a hint needs a token of its room\'s bucket and of its IP\'s; neither is spent when the other refuses)',
  }),
  pushBurstPerIp: int({
    flag: 'push-burst-per-ip',
    env: 'RELAY_PUSH_BURST_PER_IP',
    default: 40,
    help: 'push burst per machine IP (H1)',
    over: '',
  }),
  maxConcurrentPushes: int({
    flag: 'max-concurrent-pushes',
    env: 'RELAY_MAX_CONCURRENT_PUSHES',
    default: 32,
    help: 'push service requests in flight at once, relay-wide (H1)',
    over: 'further requests wait in the queue',
  }),
  maxQueuedPushes: int({
    flag: 'max-queued-pushes',
    env: 'RELAY_MAX_QUEUED_PUSHES',
    default: 512,
    help: 'push service requests waiting for a slot, relay-wide (H1)',
    over: 'the request is refused at once; the machine gets `push-failed` "push failed for K of N subscriptions (relay push queue full: K)"',
  }),
  headersTimeoutMs: int({
    flag: 'headers-timeout-ms',
    env: 'RELAY_HEADERS_TIMEOUT_MS',
    default: 10_000,
    help: "an HTTP request's headers must arrive within this; for a connection's first request (the WebSocket upgrade too) counted from the TCP accept, so a socket that sends nothing is closed as well (slowloris, P8; Node's HTTP server enforces it, checking every quarter of this)",
    over: '`408`, connection closed',
  }),
  requestTimeoutMs: int({
    flag: 'request-timeout-ms',
    env: 'RELAY_REQUEST_TIMEOUT_MS',
    default: 15_000,
    help: "a whole HTTP request must arrive within this (Node's HTTP server enforces it)",
    over: 'as above',
  }),
  keepAliveTimeoutMs: int({
    flag: 'keep-alive-timeout-ms',
    env: 'RELAY_KEEP_ALIVE_TIMEOUT_MS',
    default: 5_000,
    help: "an HTTP connection idle between requests is closed after this (P8; Node's HTTP server enforces it)",
    over: 'the connection is closed',
  }),
  maxBufferedBytes: int({
    flag: 'max-buffered-bytes',
    env: 'RELAY_MAX_BUFFERED_BYTES',
    default: 1_048_576,
    help: 'unsent bytes per socket',
    over: "the socket is terminated (a reader that stopped reading cannot grow the relay's memory)",
  }),
  pushTtlSec: int({
    flag: 'push-ttl-sec',
    env: 'RELAY_PUSH_TTL_SEC',
    default: 86_400,
    help: '`TTL` header of every Web Push request',
  }),
  pushTimeoutMs: int({
    flag: 'push-timeout-ms',
    env: 'RELAY_PUSH_TIMEOUT_MS',
    default: 10_000,
    help: "total deadline of one push service request — connect, send, status, headers and body together, on the relay's clock (H1; not an idle timeout)",
    over: 'the socket is destroyed; `push-failed` "(no answer within N ms: K)"',
  }),
  subscriptionTtlDays: int({
    flag: 'subscription-ttl-days',
    env: 'RELAY_SUBSCRIPTION_TTL_DAYS',
    default: 60,
    help: 'drop subscriptions not refreshed by a `push-subscribe` for this long (D7)',
  }),
  subscriptionMachineDays: int({
    flag: 'subscription-machine-days',
    env: 'RELAY_SUBSCRIPTION_MACHINE_DAYS',
    default: 60,
    help: "drop a room's subscriptions when no machine joined the room for this long (H2)",
  }),
  subscriptionGraceSec: int({
    flag: 'subscription-grace-sec',
    env: 'RELAY_SUBSCRIPTION_GRACE_SEC',
    default: 3_600,
    help: 'drop subscriptions of a room no machine has ever been seen in once they are this old (H2)',
  }),
  redis: optional({
    flag: 'redis',
    env: 'RELAY_REDIS_URL',
    help: '`redis://host:port`: run as one of many replicas sharing rooms and presence through Redis (see "Many replicas" below); without it, one process',
  }),
  redisHeartbeatMs: int({
    flag: 'redis-heartbeat-ms',
    env: 'RELAY_REDIS_HEARTBEAT_MS',
    default: 2_000,
    help: "with `--redis`: the replica's heartbeat; its key expires after 3 beats, so a killed replica's sockets stop counting within 4 × this",
  }),
};

type ValueOf<O> = O extends Option<infer T> ? T : never;
export type RelaySettings = { [K in keyof typeof OPTIONS]: ValueOf<(typeof OPTIONS)[K]> };
export type SettingKey = keyof RelaySettings;
