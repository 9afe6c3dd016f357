import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startEntry } from '../../testkit/process.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { startRelayProcess } from './relay-process.ts';

// `npm run machine` as a real process (its bundle under node, testkit/bundles.ts: the exit code
// is the machine's own), leader of its own process group.

/** A stop waits this long for the machine's own shutdown before SIGKILL (the test's limit). */
const STOP_GRACE_MS = 20_000;

export type MachineProcess = {
  readonly pid: number;
  readonly io: { readonly stdout: string; readonly stderr: string };
  readonly exited: Promise<number | null>;
  write(line: string): void;
  /** Signals the whole group; resolves with the exit code once every member is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

export function startMachineProcess(args: string[], env: NodeJS.ProcessEnv = {}): MachineProcess {
  const p = startEntry('machine', 'machine/main.ts', args, { env });
  return {
    pid: p.pid,
    io: {
      get stdout() {
        return p.stdout();
      },
      get stderr() {
        return p.stderr();
      },
    },
    exited: p.exited.then((e) => e.code),
    write: (line) => p.write(line),
    stop: async (signal = 'SIGTERM') => (await p.stop({ signal, graceMs: STOP_GRACE_MS })).code,
  };
}

/**
 * The folders and relay a process-level test needs: a fresh tmp folder, the real relay in it, an
 * allowed root and a state dir (not made: the machine makes it 0700). Everything is undone by
 * the `cleanups` the test runs after it.
 */
export async function relayAndFolders(cleanups: Array<() => Promise<unknown> | void>) {
  const tmp = makeTmpDir();
  cleanups.push(tmp.cleanup);
  const relay = await startRelayProcess({ dataDir: path.join(tmp.dir, 'relay') });
  cleanups.push(() => relay.stop());
  const root = path.join(tmp.dir, 'root');
  mkdirSync(root);
  return { tmp, relay, root, stateDir: path.join(tmp.dir, 'state') };
}
