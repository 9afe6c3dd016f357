// What `npm test` needs from the system besides node_modules, checked before anything slow runs
// (the e2e suite would otherwise fail every test with "executable doesn't exist" after minutes of
// lint, typecheck, unit tests and the build).
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';

export const PREREQ_CHECK_TIMEOUT_MS = 800;

export type Prereq = {
  /** The Debian package that provides it. */
  pkg: string;
  /** Why the tests need it. */
  why: string;
  present(): boolean;
};

function runs(command: string, args: string[]): boolean {
  const r = spawnSync(command, args, { stdio: 'ignore', timeout: PREREQ_CHECK_TIMEOUT_MS });
  return r.error === undefined && r.status === 0;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function prereqs(env: NodeJS.ProcessEnv = process.env): Prereq[] {
  const chromium = env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  return [
    {
      pkg: 'chromium',
      why: `the e2e suite drives Chromium at ${chromium} (set CHROMIUM_PATH to use another)`,
      present: () => executable(chromium),
    },
    {
      pkg: 'redis-server',
      why: 'the relay tests run replicas over a real Redis',
      present: () => runs('redis-server', ['--version']),
    },
    {
      pkg: 'openssl',
      why: 'the TLS tests make their certificates with openssl',
      present: () => runs('openssl', ['version']),
    },
    {
      pkg: 'caddy',
      why: 'the deployment test (P3) runs the real Caddy in front of the app and relay',
      present: () => runs('caddy', ['version']),
    },
  ];
}

/** The missing prerequisites, and the one command that installs them all (Debian). */
export function missingPrereqs(list: Prereq[]): { missing: Prereq[]; install: string } {
  const missing = list.filter((p) => !p.present());
  const install = `sudo apt-get install -y ${missing.map((p) => p.pkg).join(' ')}`;
  return { missing, install };
}
