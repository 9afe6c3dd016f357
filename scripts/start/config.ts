import net from 'node:net';
import path from 'node:path';

// `npm start`'s settings: everything lives under one data folder, every port can be moved by an
// environment variable (tests run a second copy beside a developer's demo).

/** Printed once every part answers; tests and scripts wait for it. */
export const READY_LINE = 'dsh-dispatch demo is ready';

export type StartConfig = {
  dataDir: string;
  relayPort: number;
  appPort: number;
  lanePort: number;
  vapidSubject: string;
  machineName: string;
  /** The relay URL the machine dials and puts into the pairing code (a phone must reach it). */
  publicRelayUrl: string | undefined;
  /** The app's address in the pairing link (a phone must reach it). */
  publicAppUrl: string | undefined;
  /** P4: Caddy in front of the app and the relay on the LAN address (`--lan`, DSH_LAN=1). */
  lan: boolean;
  /** U5: the relay's, phones' and devices' comings and goings too (`--verbose`). */
  verbose: boolean;
  /** The address phones reach this computer on; detected when unset. */
  lanHost: string | undefined;
  /** Caddy's https port on that address. */
  lanPort: number;
  /** Where the phone downloads the local CA's root certificate (plain http, that one file). */
  lanCaPort: number;
};

export const START_ENV = {
  dataDir: 'DSH_DATA_DIR',
  relayPort: 'DSH_RELAY_PORT',
  appPort: 'DSH_APP_PORT',
  lanePort: 'DSH_DEVICE_LANE_PORT',
  vapidSubject: 'DSH_VAPID_SUBJECT',
  machineName: 'DSH_MACHINE_NAME',
  publicRelayUrl: 'DSH_PUBLIC_RELAY_URL',
  publicAppUrl: 'DSH_PUBLIC_APP_URL',
  lan: 'DSH_LAN',
  lanHost: 'DSH_LAN_HOST',
  lanPort: 'DSH_LAN_PORT',
  lanCaPort: 'DSH_LAN_CA_PORT',
} as const;

/** The flag that turns on LAN mode: `npm start -- --lan`. */
export const LAN_FLAG = '--lan';
/** `npm start -- --verbose`: also show the relay's, phones' and devices' comings and goings (U5). */
export const VERBOSE_FLAG = '--verbose';
const FLAGS = [LAN_FLAG, VERBOSE_FLAG];

export class StartConfigError extends Error {
  readonly code = 'bad-start-env';
}

/** A start refused or failed for a reason with its own stable code (`caddy-missing`, …). */
export class StartError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || n < 1 || n > 65535) {
    throw new StartConfigError(`${name} must be a port number 1-65535, not "${raw}"`);
  }
  return n;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let ok = false;
  try {
    ok = protocols.includes(new URL(raw).protocol);
  } catch {
    ok = false;
  }
  if (!ok)
    throw new StartConfigError(`${name} must be a ${protocols.join(' or ')} URL, not "${raw}"`);
  return raw;
}

function lanHost(env: NodeJS.ProcessEnv): string | undefined {
  const raw = env[START_ENV.lanHost];
  if (raw === undefined || raw === '') return undefined;
  if (
    net.isIPv4(raw) ||
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(raw)
  )
    return raw;
  throw new StartConfigError(
    `${START_ENV.lanHost} must be an IPv4 address or a host name, not "${raw}"`,
  );
}

export function readStartConfig(
  env: NodeJS.ProcessEnv,
  repo: string,
  argv: readonly string[] = [],
): StartConfig {
  for (const a of argv)
    if (!FLAGS.includes(a))
      throw new StartConfigError(`unknown option "${a}" (only ${FLAGS.join(', ')})`);
  return {
    dataDir: path.resolve(repo, env[START_ENV.dataDir] || '.data'),
    relayPort: port(env, START_ENV.relayPort, 8787),
    appPort: port(env, START_ENV.appPort, 4173),
    lanePort: port(env, START_ENV.lanePort, 8790),
    // Push services want a contact; a real deployment sets its own (README: deploying the relay).
    vapidSubject: env[START_ENV.vapidSubject] || 'mailto:demo@dsh-dispatch.invalid',
    machineName: env[START_ENV.machineName] || 'demo',
    publicRelayUrl: url(env, START_ENV.publicRelayUrl, ['ws:', 'wss:']),
    publicAppUrl: url(env, START_ENV.publicAppUrl, ['http:', 'https:'])?.replace(/\/+$/, ''),
    lan: argv.includes(LAN_FLAG) || ['1', 'true', 'yes'].includes(env[START_ENV.lan] ?? ''),
    lanHost: lanHost(env),
    lanPort: port(env, START_ENV.lanPort, 8443),
    lanCaPort: port(env, START_ENV.lanCaPort, 8080),
    verbose: argv.includes(VERBOSE_FLAG),
  };
}
