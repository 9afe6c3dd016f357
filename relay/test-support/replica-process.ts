// A relay replica as its own process (`tsx relay/main.ts --redis …`), in its own process group so
// a test can kill it with -9 (kill -9 fault tests) and give it its own environment (a CA for a
// TLS Redis: Node reads NODE_EXTRA_CA_CERTS only at start).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import url from 'node:url';

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');

export type ReplicaProcess = { url: string; child: ChildProcess };

export async function startReplicaProcess(opts: {
  redisUrl: string;
  dataDir: string;
  heartbeatMs: number;
  env?: Record<string, string>;
}): Promise<ReplicaProcess> {
  const child = spawn(
    path.join(root, 'node_modules', '.bin', 'tsx'),
    ['relay/main.ts', '--port', '0', '--log-level', 'warn', '--redis', opts.redisUrl],
    {
      cwd: root,
      detached: true,
      env: {
        ...process.env,
        ...opts.env,
        RELAY_DATA_DIR: opts.dataDir,
        RELAY_HOST: '127.0.0.1',
        RELAY_REDIS_HEARTBEAT_MS: String(opts.heartbeatMs),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`relay exited ${code}`)));
  });
  return { url: line.replace('relay listening on ', ''), child };
}

/** SIGKILL to the replica's process group, unless it is gone already. */
export function killReplica(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null)
    process.kill(-(child.pid as number), 'SIGKILL');
}
