// Every relay setting in one table: flag, environment variable, default, help. The CLI, the
// docs (docs/relay.md) and startRelay's defaults all come from here, so they cannot drift.
import { PING_INTERVAL_MS } from '../protocol/index.ts';
import { parseBasePath } from './base-path.ts';

export type RelaySettings = {
  host: string;
  port: number;
  path: string;
  metrics: boolean;
  dataDir: string;
  vapidSubject: string | undefined;
  logLevel: string;
  unsafeAllowPushOrigins: string[];
  rateLimits: boolean;
  trustProxy: boolean;
  helloDeadlineMs: number;
  pingIntervalMs: number;
  maxRoomsPerSocket: number;
  maxPhonesPerRoom: number;
  maxMachinesPerRoom: number;
  maxConnectionsPerIp: number;
  maxConnections: number;
  msgRatePerSec: number;
  msgBurst: number;
  maxSubscriptionsPerRoom: number;
  pushRatePerMin: number;
  pushBurst: number;
  pushRatePerMinPerIp: number;
  pushBurstPerIp: number;
  maxSubscriptionsPerIp: number;
  maxSubscriptions: number;
  maxConcurrentPushes: number;
  maxQueuedPushes: number;
  subscriptionMachineDays: number;
  subscriptionGraceSec: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxBufferedBytes: number;
  pushTtlSec: number;
  pushTimeoutMs: number;
  subscriptionTtlDays: number;
  redis: string | undefined;
  redisHeartbeatMs: number;
};

type Kind = 'string' | 'int' | 'bool' | 'list' | 'optional' | 'path';
type Spec = { key: keyof RelaySettings; flag: string; env: string; kind: Kind; help: string };

export const DEFAULT_SETTINGS: RelaySettings = {
  host: '127.0.0.1',
  port: 8787,
  path: '/',
  metrics: false,
  dataDir: '.data/relay',
  vapidSubject: undefined,
  logLevel: 'info',
  unsafeAllowPushOrigins: [],
  rateLimits: true,
  trustProxy: false,
  helloDeadlineMs: 5_000,
  pingIntervalMs: PING_INTERVAL_MS,
  maxRoomsPerSocket: 32,
  maxPhonesPerRoom: 8,
  maxMachinesPerRoom: 2,
  maxConnectionsPerIp: 32,
  maxConnections: 10_000,
  msgRatePerSec: 20,
  msgBurst: 100,
  maxSubscriptionsPerRoom: 10,
  pushRatePerMin: 10,
  pushBurst: 20,
  pushRatePerMinPerIp: 30,
  pushBurstPerIp: 40,
  maxSubscriptionsPerIp: 100,
  maxSubscriptions: 50_000,
  maxConcurrentPushes: 32,
  maxQueuedPushes: 512,
  subscriptionMachineDays: 60,
  subscriptionGraceSec: 3_600,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  maxBufferedBytes: 1_048_576,
  pushTtlSec: 86_400,
  pushTimeoutMs: 10_000,
  subscriptionTtlDays: 60,
  redis: undefined,
  redisHeartbeatMs: 2_000,
};

export const SETTING_SPECS: readonly Spec[] = [
  { key: 'host', flag: 'host', env: 'RELAY_HOST', kind: 'string', help: 'address to listen on' },
  { key: 'port', flag: 'port', env: 'RELAY_PORT', kind: 'int', help: 'port (0 picks a free one)' },
  {
    key: 'path',
    flag: 'path',
    env: 'RELAY_PATH',
    kind: 'path',
    help: 'base path of the WebSocket, /healthz, /vapid and /metrics (e.g. /relay behind a proxy that serves the app at /) (P1)',
  },
  {
    key: 'metrics',
    flag: 'metrics',
    env: 'RELAY_METRICS',
    kind: 'bool',
    help: 'serve Prometheus metrics at <path>/metrics (P5); keep it off the public proxy',
  },
  {
    key: 'dataDir',
    flag: 'data-dir',
    env: 'RELAY_DATA_DIR',
    kind: 'string',
    help: 'VAPID keys and the subscription database (owner-only)',
  },
  {
    key: 'vapidSubject',
    flag: 'vapid-subject',
    env: 'RELAY_VAPID_SUBJECT',
    kind: 'optional',
    help: 'mailto: or https: contact for push services; without it Web Push is off (push-disabled)',
  },
  {
    key: 'logLevel',
    flag: 'log-level',
    env: 'RELAY_LOG_LEVEL',
    kind: 'string',
    help: 'pino level: fatal, error, warn, info, debug, silent',
  },
  {
    key: 'unsafeAllowPushOrigins',
    flag: 'unsafe-allow-push-origin',
    env: 'RELAY_UNSAFE_ALLOW_PUSH_ORIGINS',
    kind: 'list',
    help: 'TESTS ONLY: let push endpoints on this origin (http included) bypass the SSRF checks; repeatable, env comma-separated',
  },
  {
    key: 'rateLimits',
    flag: 'rate-limits',
    env: 'RELAY_RATE_LIMITS',
    kind: 'bool',
    help: 'message and push rate limits (--no-rate-limits turns both off)',
  },
  {
    key: 'trustProxy',
    flag: 'trust-proxy',
    env: 'RELAY_TRUST_PROXY',
    kind: 'bool',
    help: 'count connections per IP by the last X-Forwarded-For entry (behind a reverse proxy)',
  },
  {
    key: 'helloDeadlineMs',
    flag: 'hello-deadline-ms',
    env: 'RELAY_HELLO_DEADLINE_MS',
    kind: 'int',
    help: 'close a socket with no valid hello after this long (D2)',
  },
  {
    key: 'pingIntervalMs',
    flag: 'ping-interval-ms',
    env: 'RELAY_PING_INTERVAL_MS',
    kind: 'int',
    help: 'WebSocket ping interval; a socket that missed its pong is terminated',
  },
  {
    key: 'maxRoomsPerSocket',
    flag: 'max-rooms-per-socket',
    env: 'RELAY_MAX_ROOMS_PER_SOCKET',
    kind: 'int',
    help: 'rooms one socket may join',
  },
  {
    key: 'maxPhonesPerRoom',
    flag: 'max-phones-per-room',
    env: 'RELAY_MAX_PHONES_PER_ROOM',
    kind: 'int',
    help: 'phone sockets per room',
  },
  {
    key: 'maxMachinesPerRoom',
    flag: 'max-machines-per-room',
    env: 'RELAY_MAX_MACHINES_PER_ROOM',
    kind: 'int',
    help: 'machine sockets per room',
  },
  {
    key: 'maxConnectionsPerIp',
    flag: 'max-connections-per-ip',
    env: 'RELAY_MAX_CONNECTIONS_PER_IP',
    kind: 'int',
    help: 'open sockets per client IP (IPv6: per /64)',
  },
  {
    key: 'maxConnections',
    flag: 'max-connections',
    env: 'RELAY_MAX_CONNECTIONS',
    kind: 'int',
    help: 'open sockets in total; upgrades beyond get 503',
  },
  {
    key: 'msgRatePerSec',
    flag: 'msg-rate-per-sec',
    env: 'RELAY_MSG_RATE_PER_SEC',
    kind: 'int',
    help: 'frames per second per socket (token bucket refill)',
  },
  {
    key: 'msgBurst',
    flag: 'msg-burst',
    env: 'RELAY_MSG_BURST',
    kind: 'int',
    help: 'frame burst per socket (token bucket size)',
  },
  {
    key: 'maxSubscriptionsPerRoom',
    flag: 'max-subscriptions-per-room',
    env: 'RELAY_MAX_SUBSCRIPTIONS_PER_ROOM',
    kind: 'int',
    help: 'stored push subscriptions per room',
  },
  {
    key: 'pushRatePerMin',
    flag: 'push-rate-per-min',
    env: 'RELAY_PUSH_RATE_PER_MIN',
    kind: 'int',
    help: 'pushes per minute per room (token bucket refill)',
  },
  {
    key: 'pushBurst',
    flag: 'push-burst',
    env: 'RELAY_PUSH_BURST',
    kind: 'int',
    help: 'push burst per room',
  },
  {
    key: 'pushRatePerMinPerIp',
    flag: 'push-rate-per-min-per-ip',
    env: 'RELAY_PUSH_RATE_PER_MIN_PER_IP',
    kind: 'int',
    help: 'pushes per minute from one machine IP over all its rooms (H1; IPv6: per /64)',
  },
  {
    key: 'pushBurstPerIp',
    flag: 'push-burst-per-ip',
    env: 'RELAY_PUSH_BURST_PER_IP',
    kind: 'int',
    help: 'push burst per machine IP (H1)',
  },
  {
    key: 'maxSubscriptionsPerIp',
    flag: 'max-subscriptions-per-ip',
    env: 'RELAY_MAX_SUBSCRIPTIONS_PER_IP',
    kind: 'int',
    help: 'stored push subscriptions created from one IP over all rooms (H2; IPv6: per /64)',
  },
  {
    key: 'maxSubscriptions',
    flag: 'max-subscriptions',
    env: 'RELAY_MAX_SUBSCRIPTIONS',
    kind: 'int',
    help: 'stored push subscriptions in total (H2)',
  },
  {
    key: 'maxConcurrentPushes',
    flag: 'max-concurrent-pushes',
    env: 'RELAY_MAX_CONCURRENT_PUSHES',
    kind: 'int',
    help: 'push service requests in flight at once, over all rooms (H1)',
  },
  {
    key: 'maxQueuedPushes',
    flag: 'max-queued-pushes',
    env: 'RELAY_MAX_QUEUED_PUSHES',
    kind: 'int',
    help: 'push service requests waiting for a slot; beyond, push-failed (H1)',
  },
  {
    key: 'headersTimeoutMs',
    flag: 'headers-timeout-ms',
    env: 'RELAY_HEADERS_TIMEOUT_MS',
    kind: 'int',
    help: 'HTTP request headers must arrive within this (slowloris)',
  },
  {
    key: 'requestTimeoutMs',
    flag: 'request-timeout-ms',
    env: 'RELAY_REQUEST_TIMEOUT_MS',
    kind: 'int',
    help: 'a whole HTTP request must arrive within this',
  },
  {
    key: 'maxBufferedBytes',
    flag: 'max-buffered-bytes',
    env: 'RELAY_MAX_BUFFERED_BYTES',
    kind: 'int',
    help: 'terminate a socket whose unsent data passes this',
  },
  {
    key: 'pushTtlSec',
    flag: 'push-ttl-sec',
    env: 'RELAY_PUSH_TTL_SEC',
    kind: 'int',
    help: 'TTL header of every Web Push request',
  },
  {
    key: 'pushTimeoutMs',
    flag: 'push-timeout-ms',
    env: 'RELAY_PUSH_TIMEOUT_MS',
    kind: 'int',
    help: 'total deadline of one push service request: connect, send and answer (H1)',
  },
  {
    key: 'subscriptionTtlDays',
    flag: 'subscription-ttl-days',
    env: 'RELAY_SUBSCRIPTION_TTL_DAYS',
    kind: 'int',
    help: 'drop subscriptions not refreshed for this long (D7)',
  },
  {
    key: 'subscriptionMachineDays',
    flag: 'subscription-machine-days',
    env: 'RELAY_SUBSCRIPTION_MACHINE_DAYS',
    kind: 'int',
    help: "drop a room's subscriptions when no machine joined it for this long (H2)",
  },
  {
    key: 'subscriptionGraceSec',
    flag: 'subscription-grace-sec',
    env: 'RELAY_SUBSCRIPTION_GRACE_SEC',
    kind: 'int',
    help: 'drop subscriptions of a room no machine ever joined after this (H2)',
  },
  {
    key: 'redis',
    flag: 'redis',
    env: 'RELAY_REDIS_URL',
    kind: 'optional',
    help: 'redis://host:port: share rooms and presence with other replicas through Redis (default: one process)',
  },
  {
    key: 'redisHeartbeatMs',
    flag: 'redis-heartbeat-ms',
    env: 'RELAY_REDIS_HEARTBEAT_MS',
    kind: 'int',
    help: "with --redis: replica heartbeat; a dead replica's sockets stop counting within 4x this",
  },
];

export type ParsedArgs =
  { ok: true; help: boolean; settings: RelaySettings } | { ok: false; message: string };

function convert(
  spec: Spec,
  raw: string,
): { ok: true; value: unknown } | { ok: false; why?: string } {
  switch (spec.kind) {
    case 'path': {
      const p = parseBasePath(raw);
      return p.ok ? p : { ok: false, why: p.message };
    }
    case 'int': {
      if (!/^\d+$/.test(raw)) return { ok: false };
      return { ok: true, value: Number(raw) };
    }
    case 'bool':
      if (['1', 'true', 'yes', 'on'].includes(raw)) return { ok: true, value: true };
      if (['0', 'false', 'no', 'off'].includes(raw)) return { ok: true, value: false };
      return { ok: false };
    case 'list':
      return {
        ok: true,
        value: raw
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      };
    default:
      return { ok: true, value: raw };
  }
}

/** Flags win over environment variables, which win over defaults. */
export function parseSettings(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): ParsedArgs {
  const out: Record<string, unknown> = { ...DEFAULT_SETTINGS };
  for (const spec of SETTING_SPECS) {
    const raw = env[spec.env];
    if (raw === undefined || raw === '') continue;
    const v = convert(spec, raw);
    if (!v.ok) return { ok: false, message: `${spec.env}: ${v.why ?? `invalid value "${raw}"`}` };
    out[spec.key] = v.value;
  }
  const lists = new Map<string, string[]>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) return { ok: false, message: `unexpected argument "${arg}"` };
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const negated = SETTING_SPECS.find((s) => s.kind === 'bool' && `no-${s.flag}` === name);
    if (negated && eq === -1) {
      out[negated.key] = false;
      continue;
    }
    const spec = SETTING_SPECS.find((s) => s.flag === name);
    if (!spec) return { ok: false, message: `unknown option --${name} (see --help)` };
    if (spec.kind === 'bool' && eq === -1) {
      out[spec.key] = true;
      continue;
    }
    const raw = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (raw === undefined) return { ok: false, message: `--${name} needs a value` };
    const v = convert(spec, raw);
    if (!v.ok) return { ok: false, message: `--${name}: ${v.why ?? `invalid value "${raw}"`}` };
    if (spec.kind === 'list') {
      lists.set(spec.key, [...(lists.get(spec.key) ?? []), ...(v.value as string[])]);
    } else out[spec.key] = v.value;
  }
  for (const [key, values] of lists) out[key] = values;
  return { ok: true, help, settings: out as RelaySettings };
}

export function helpText(): string {
  const lines = [
    'Usage: npm run relay -- [options]',
    '',
    'Options (flag / environment variable, default):',
  ];
  for (const s of SETTING_SPECS) {
    const def = DEFAULT_SETTINGS[s.key];
    const shown = Array.isArray(def) ? '(none)' : def === undefined ? '(none)' : String(def);
    const flag = s.kind === 'bool' ? `--${s.flag} / --no-${s.flag}` : `--${s.flag} <value>`;
    lines.push(`  ${flag}`, `      ${s.env}, default ${shown}`, `      ${s.help}`);
  }
  lines.push('  --help', '      this text');
  return lines.join('\n');
}
