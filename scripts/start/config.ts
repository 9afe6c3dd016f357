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
} as const;

export class StartConfigError extends Error {
  readonly code = 'bad-start-env';
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

export function readStartConfig(env: NodeJS.ProcessEnv, repo: string): StartConfig {
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
  };
}

export type StartArgs = { verbose: boolean };

/** `npm start -- --verbose`: also show the relay's, phones' and devices' comings and goings. */
export function readStartArgs(argv: readonly string[]): StartArgs {
  const unknown = argv.filter((a) => a !== '--verbose');
  if (unknown.length > 0) {
    throw new StartConfigError(`unknown argument ${unknown[0]} (npm start takes only --verbose)`);
  }
  return { verbose: argv.includes('--verbose') };
}
