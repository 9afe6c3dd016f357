import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import url from 'node:url';
import { isGone } from './relay-process.ts';
import { until } from './until.ts';

// The real device executor as child processes (machine/ may not import the executor):
// `tsx device/main.ts enroll …` once, then `serve`, each in its own process group.

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');
const TSX = path.join(repo, 'node_modules/.bin/tsx');
const EXIT_TIMEOUT_MS = 20_000;

function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(TSX, ['device/main.ts', ...args], {
    cwd: repo,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `npm run device -- <args>` to its end; resolves with the exit code and output. */
export function runDeviceCommand(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const child = run(args, env);
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`device ${args[0]} did not finish: ${err}`));
    }, EXIT_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out, err });
    });
  });
}

export type ServingExecutor = {
  pid: number;
  stderr(): string;
  /** Signals the whole group and waits until every process of it is gone (zombies count). */
  stop(signal?: NodeJS.Signals): Promise<void>;
};

export function serveDevice(keyDir: string, env: NodeJS.ProcessEnv = {}): ServingExecutor {
  const child = run(['serve', '--key-dir', keyDir, '--log-level', 'warn'], env);
  let err = '';
  child.stdout!.resume();
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  const closed = new Promise<void>((r) => child.on('close', () => r()));
  const pid = child.pid!;
  return {
    pid,
    stderr: () => err,
    async stop(signal = 'SIGTERM') {
      try {
        process.kill(-pid, signal);
      } catch {
        // already gone
      }
      await closed;
      await until(() => isGone(pid), `executor ${pid} gone`, EXIT_TIMEOUT_MS);
    },
  };
}
