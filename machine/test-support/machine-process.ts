import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { isGone, startRelayProcess } from './relay-process.ts';
import { makeTmpDir } from './tmp.ts';
import { until } from './until.ts';

// `npm run machine` as a real process: one node process (tsx as a loader, not its wrapper, so
// the exit code is the machine's own), leader of its own process group.

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');

export type MachineProcess = {
  readonly pid: number;
  readonly io: { stdout: string; stderr: string };
  readonly exited: Promise<number | null>;
  write(line: string): void;
  /** Signals the whole group; resolves with the exit code once every member is gone. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

export function startMachineProcess(args: string[], env: NodeJS.ProcessEnv = {}): MachineProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'machine/main.ts', ...args], {
    cwd: repo,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  const io = { stdout: '', stderr: '' };
  child.stdout!.on('data', (b: Buffer) => (io.stdout += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (io.stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    pid,
    io,
    exited,
    write: (line) => child.stdin!.write(line),
    async stop(signal = 'SIGTERM') {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
      const code = await exited;
      await until(() => isGone(pid), 'the machine process group to be gone', 20_000);
      return code;
    },
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
