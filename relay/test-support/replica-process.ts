// A relay replica as its own process (its bundle with `--redis …`), in its own process group so
// a test can kill it with -9 (kill -9 fault tests) and give it its own environment (a CA for a
// TLS Redis: Node reads NODE_EXTRA_CA_CERTS only at start).
import type { ChildProcess } from 'node:child_process';
import { startEntry, whenReady } from '../../testkit/process.ts';

export type ReplicaProcess = { url: string; child: ChildProcess };

export async function startReplicaProcess(opts: {
  redisUrl: string;
  dataDir: string;
  heartbeatMs: number;
  env?: Record<string, string>;
}): Promise<ReplicaProcess> {
  const p = startEntry(
    'relay replica',
    'relay/main.ts',
    ['--port', '0', '--log-level', 'warn', '--redis', opts.redisUrl],
    {
      closeStdin: true,
      env: {
        ...opts.env,
        RELAY_DATA_DIR: opts.dataDir,
        RELAY_HOST: '127.0.0.1',
        RELAY_REDIS_HEARTBEAT_MS: String(opts.heartbeatMs),
      },
    },
  );
  const m = await whenReady(p, /relay listening on (\S+)/);
  return { url: m[1]!, child: p.child };
}

/** SIGKILL to the replica's process group, unless it is gone already. */
export function killReplica(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null)
    process.kill(-(child.pid as number), 'SIGKILL');
}
