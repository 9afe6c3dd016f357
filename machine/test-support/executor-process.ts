import { shellQuote } from '../links/device-link.ts';
import { nodeCommand } from '../../testkit/bundles.ts';
import { runToEnd, startEntry, startProcess, type TestProcess } from '../../testkit/process.ts';

// The real device executor as child processes (machine/ may not import the executor): its bundle
// (testkit/bundles.ts) with `enroll …` once, then `serve`, each in its own process group.

const EXIT_TIMEOUT_MS = 20_000;

function run(args: string[], env: NodeJS.ProcessEnv): TestProcess {
  return startEntry(`device ${args[0]}`, 'device/main.ts', args, { env, closeStdin: true });
}

async function collect(p: TestProcess): Promise<{ code: number | null; out: string; err: string }> {
  const { code, out, err } = await runToEnd(p, EXIT_TIMEOUT_MS);
  return { code, out, err };
}

/** Runs `npm run device -- <args>` to its end; resolves with the exit code and output. */
export function runDeviceCommand(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; out: string; err: string }> {
  return collect(run(args, env));
}

/**
 * Runs a printed enrollment command the way a user pastes it into a shell (`sh -c`: the
 * environment assignments, the `$(cat …)`, the quoting), with `npm run device --` spelled as
 * what the script runs (device/main.ts, here its bundle) to spare npm's start-up.
 */
export function runPrintedCommand(
  command: string,
  extraArgs: string[],
): Promise<{ code: number | null; out: string; err: string }> {
  const quoted = extraArgs.map(shellQuote).join(' ');
  const device = nodeCommand('device/main.ts');
  const spelled = [device.command, ...device.args].map(shellQuote).join(' ');
  const line = `${command.replace('npm run device --', spelled)} ${quoted}`;
  return collect(startProcess('the printed command', 'sh', ['-c', line], { closeStdin: true }));
}

export type ServingExecutor = {
  pid: number;
  stderr(): string;
  /** Signals the whole group and waits until every process of it is gone (zombies count). */
  stop(signal?: NodeJS.Signals): Promise<void>;
};

export function serveDevice(keyDir: string, env: NodeJS.ProcessEnv = {}): ServingExecutor {
  const p = run(['serve', '--key-dir', keyDir, '--log-level', 'warn'], env);
  return {
    pid: p.pid,
    stderr: () => p.stderr(),
    stop: async (signal = 'SIGTERM') => void (await p.stop({ signal, graceMs: EXIT_TIMEOUT_MS })),
  };
}
