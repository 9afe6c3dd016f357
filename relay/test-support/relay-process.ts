// The relay as its own process (its bundle under node, testkit/bundles.ts: the exit code and
// signals are the relay's own; its own data dir), for tests that measure it from outside: its
// event loop is then not shared with the test's clients and fake services. stderr (the JSON log)
// is kept for a failing test to print.
import type { ChildProcess } from 'node:child_process';
import { startEntry, whenReady } from '../../testkit/process.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

const STOP_GRACE_MS = 10_000;

export type RelayProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, wait for the exit; returns the exit code (null when killed by a signal). Removes
   * the data dir. */
  stop(): Promise<number | null>;
};

export async function startRelayProcess(args: string[]): Promise<RelayProcess> {
  const data = makeTmpDir('relay-proc-');
  const p = startEntry(
    'relay',
    'relay/main.ts',
    ['--host', '127.0.0.1', '--port', '0', '--data-dir', data.dir, ...args],
    { closeStdin: true },
  );
  const wsUrl = (await whenReady(p, /^relay listening on (\S+)$/))[1]!;
  return {
    url: wsUrl,
    port: Number(new URL(wsUrl).port),
    child: p.child,
    stderr: () => p.stderr(),
    async stop() {
      // A relay that does not finish its shutdown is killed, so no test can leave it behind.
      const { code } = await p.stop({ graceMs: STOP_GRACE_MS });
      data.cleanup();
      return code;
    },
  };
}
