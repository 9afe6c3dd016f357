import { startEntry, whenReady } from '../../testkit/process.ts';

// The real relay as a child process (machine/ may not import relay/): its bundle with `--port 0
// --data-dir <dir>`, ready when it prints `relay listening on ws://HOST:PORT`. It runs in its own
// process group, and stop() kills the whole group and waits until it is gone.

const START_TIMEOUT_MS = 15_000;
const STOP_GRACE_MS = 3000;

export type RelayProcess = { url: string; port: number; pid: number; stop(): Promise<void> };

export async function startRelayProcess(options: {
  dataDir: string;
  port?: number;
  extraArgs?: string[];
}): Promise<RelayProcess> {
  const relay = startEntry('relay', 'relay/main.ts', [
    '--port',
    String(options.port ?? 0),
    '--data-dir',
    options.dataDir,
    '--log-level',
    'warn',
    ...(options.extraArgs ?? []),
  ]);
  const m = await whenReady(relay, /relay listening on (ws:\/\/\S+)/, START_TIMEOUT_MS);
  const relayUrl = m[1]!.replace(/\/$/, '');
  return {
    url: relayUrl,
    port: Number(new URL(relayUrl).port),
    pid: relay.pid,
    stop: async () => void (await relay.stop({ graceMs: STOP_GRACE_MS, killLeftovers: true })),
  };
}
