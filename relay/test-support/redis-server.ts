// A real redis-server for tests: a free port (Debian's redis-server refuses --port 0:
// testkit's freePort), no persistence, a temporary dir, its own process group
// so it is killed whole. down() and up() restart it on the same port.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../testkit/ports.ts';

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

function launch(port: number, dir: string, tls?: RedisTls): Promise<ChildProcess> {
  const listen = tls
    ? ['--port', '0', '--tls-port', String(port), '--tls-cert-file', tls.certFile]
    : ['--port', String(port)];
  if (tls) listen.push('--tls-key-file', tls.keyFile, '--tls-auth-clients', 'no');
  const child = spawn(
    REDIS_SERVER,
    [...listen, '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { cwd: dir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const t = setTimeout(() => {
      kill(child);
      reject(new Error(`redis-server not ready within ${READY_LIMIT_MS} ms: ${out.slice(-500)}`));
    }, READY_LIMIT_MS);
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Ready to accept connections')) {
        clearTimeout(t);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`redis-server exited ${code}: ${out.slice(-500)}`));
    });
  });
}

function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    process.kill(-(child.pid as number), 'SIGKILL');
  } catch {
    // already gone
  }
  return exited;
}

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
