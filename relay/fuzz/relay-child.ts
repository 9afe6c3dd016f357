// The relay the fuzz at scale runs against (relay/fuzz/run.ts): the real startRelay with the
// fuzz settings and the fuzz DNS, in its own process started with --expose-gc, so the runner can
// ask for its memory after a full collection (IPC "memory") and stop it (IPC "stop").
import { startRelay } from '../server.ts';
import { FUZZ_RELAY_SETTINGS, resolve } from './frames.ts';

export type ChildMemory = { rss: number; heapUsed: number; external: number; connections: number };

const send = (m: unknown) => (process.send as (m: unknown) => boolean)(m);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('start with node --expose-gc');

const relay = await startRelay({
  ...FUZZ_RELAY_SETTINGS,
  host: '127.0.0.1',
  port: 0,
  dataDir: process.argv[2] as string,
  logLevel: 'warn',
  logDestination: process.stderr,
  resolve,
});
send({ url: relay.url });

process.on('message', (m) => {
  if (m === 'memory') {
    // Several passes and a turn between them: weak references and finalizers settle.
    void (async () => {
      for (let i = 0; i < 3; i++) {
        gc();
        await new Promise((r) => setImmediate(r));
      }
      const u = process.memoryUsage();
      const memory: ChildMemory = {
        rss: u.rss,
        heapUsed: u.heapUsed,
        external: u.external,
        connections: relay.connections(),
      };
      send({ memory });
    })();
  } else if (m === 'stop') {
    void relay.close().then(() => process.exit(0));
  }
});
