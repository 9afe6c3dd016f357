// A real redis-server for tests: a free port (Debian's redis-server refuses --port 0:
// testkit's freePort), no persistence, a temporary dir, its own process group
// so it is killed whole. down() and up() restart it on the same port.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../testkit/ports.ts';
import { startProcess, whenReady, type TestProcess } from '../../testkit/process.ts';

const REDIS_SERVER = '/usr/bin/redis-server';
const READY_LIMIT_MS = 5_000; // a safety net for a broken machine, not a synchronisation

export type TestRedis = {
  url: string;
  port: number;
  /** Kills the server (SIGKILL to its process group) and resolves once it has exited. */
  stop(): Promise<void>;
  /** Kills the server (SIGKILL), keeping its port and dir for up(). */
  down(): Promise<void>;
  /** A fresh, empty server on the same port. */
  up(): Promise<void>;
};

/** A TLS-only server (`rediss://`): plain TCP off, this certificate and key, no client certs. */
export type RedisTls = { certFile: string; keyFile: string };

async function launch(port: number, dir: string, tls?: RedisTls): Promise<TestProcess> {
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.certFile]
    : ['--port', String(port)];
  if (tls) listen.push('--tls-key-file', tls.keyFile, '--tls-auth-clients', 'no');
  const p = startProcess(
    'redis-server',
    REDIS_SERVER,
    [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { cwd: dir, closeStdin: true },
  );
  await whenReady(p, /Ready to accept connections/, READY_LIMIT_MS);
  return p;
}

/** SIGKILL to the server's process group; resolves once it has exited. */
const kill = async (p: TestProcess): Promise<void> => void (await p.kill());

export async function startRedis(opts: { tls?: RedisTls } = {}): Promise<TestRedis> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-redis-'));
  const port = await freePort();
  let child = await launch(port, dir, opts.tls);
  return {
    url: `${opts.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    port,
    async stop() {
      await kill(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
    down: () => kill(child),
    async up() {
      child = await launch(port, dir, opts.tls);
    },
  };
}
