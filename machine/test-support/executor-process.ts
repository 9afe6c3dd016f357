import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import url from 'node:url';
import { shellQuote } from '../device-link.ts';
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
  return collect(run(args, env), `device ${args[0]}`);
}

/**
 * Runs a printed enrollment command the way a user pastes it into a shell (`sh -c`: the
 * environment assignments, the `$(cat …)`, the quoting), with `npm run device --` spelled as
 * the script it names (`tsx device/main.ts`, package.json) to spare npm's start-up.
 */
export function runPrintedCommand(
  command: string,
  extraArgs: string[],
): Promise<{ code: number | null; out: string; err: string }> {
  const quoted = extraArgs.map(shellQuote).join(' ');
  const line = `${command.replace('npm run device --', `'${TSX}' device/main.ts`)} ${quoted}`;
  const child = spawn('sh', ['-c', line], {
    cwd: repo,
    env: process.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return collect(child, 'the printed command');
}

function collect(
  child: ChildProcess,
  what: string,
): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`${what} did not finish: ${err}`));
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
