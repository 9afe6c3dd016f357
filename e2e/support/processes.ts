// Real child processes for the e2e suite: the relay and the mock machine run as their bundles
// (testkit/bundles.ts) in their own process groups, are waited for by the line they print when
// ready, and are stopped by signalling the whole group and waiting until it is gone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEntry, type TestProcess } from '../../testkit/process.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';

const READY_TIMEOUT_MS = 30_000;

export type Proc = Omit<TestProcess, 'write' | 'stop' | 'kill'> & {
  write(line: string): void;
  stop(): Promise<void>;
  kill(): Promise<void>;
};

export function startProcess(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Proc {
  const p = startEntry(name, script, args, { env: { FORCE_COLOR: '0', ...env } });
  return {
    ...p,
    waitForLine: (pattern, timeoutMs = READY_TIMEOUT_MS) => p.waitForLine(pattern, timeoutMs),
    write: (line) => p.write(`${line}\n`),
    stop: async () => void (await p.stop()),
    kill: async () => void (await p.kill()),
  };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const t = makeTmpDir(`dsh-e2e-${prefix}-`);
  return { path: t.dir, remove: t.cleanup };
}

export type Relay = {
  url: string;
  port: number;
  proc: Proc;
  stop(): Promise<void>;
  /** Stops the relay (or, with `crash`, kills it) and starts it again on the same port. */
  restart(options?: { crash?: boolean }): Promise<void>;
  /** Stops the relay and leaves it stopped until `up` (same port, same data). */
  down(): Promise<void>;
  up(): Promise<void>;
};

/** The relay on a free loopback port; `restart` brings it back on the same port. */
export async function startRelay(): Promise<Relay> {
  const data = tempDir('relay');
  const launch = async (port: number) => {
    const proc = startProcess('relay', 'relay/main.ts', [
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--data-dir',
      data.path,
      '--log-level',
      'warn',
      '--no-rate-limits',
    ]);
    const m = await proc.waitForLine(/relay listening on (ws:\/\/127\.0\.0\.1:(\d+))/);
    return { proc, url: m[1]!, port: Number(m[2]) };
  };
  let current = await launch(0);
  const relay: Relay = {
    url: current.url,
    port: current.port,
    proc: current.proc,
    async stop() {
      await current.proc.stop();
      data.remove();
    },
    async restart(options: { crash?: boolean } = {}) {
      if (options.crash) await current.proc.kill();
      else await current.proc.stop();
      current = await launch(relay.port);
      relay.proc = current.proc;
    },
    async down() {
      await current.proc.stop();
    },
    async up() {
      current = await launch(relay.port);
      relay.proc = current.proc;
    },
  };
  return relay;
}

export type MockMachine = {
  proc: Proc;
  pairingCode: string;
  root: string;
  /** E10: its state dir (the hook socket lives there). */
  stateDir: string;
  /** Desk output lines that match, e.g. /approval (\w+) closed: allow/. */
  deskLines(pattern: RegExp): string[];
  /**
   * Stops the machine (with `crash`, SIGKILL) and starts it again with the same state dir and
   * root: the same pairing, a new process. `proc` is the new process afterwards.
   */
  restart(options?: { crash?: boolean }): Promise<void>;
  stop(): Promise<void>;
};

/** The mock machine with a workspace root it allows dispatch into. */
export async function startMachine(options: {
  relay: string;
  name: string;
  allowFullAccess?: boolean;
  appUrl: string;
  env?: Record<string, string>;
  /** More flags, e.g. `--require-presence all` (E7). */
  args?: string[];
}): Promise<MockMachine> {
  const state = tempDir('machine-state');
  const root = tempDir('machine-root');
  const args = [
    '--relay',
    options.relay,
    '--name',
    options.name,
    '--root',
    root.path,
    '--state-dir',
    state.path,
    '--app-url',
    options.appUrl,
  ];
  if (options.allowFullAccess) args.push('--allow-full-access');
  args.push(...(options.args ?? []));
  const launch = async () => {
    const p = startProcess(`machine ${options.name}`, 'machine/main.ts', args, options.env);
    await p.waitForLine(/Type "help" for desk commands/);
    return p;
  };
  const proc = await launch();
  const pairingCode = readFileSync(join(state.path, 'pairing-code.txt'), 'utf8').trim();
  const machine: MockMachine = {
    proc,
    pairingCode,
    root: root.path,
    stateDir: state.path,
    deskLines: (pattern) => machine.proc.lines.filter((l) => pattern.test(l)),
    async restart(restartOptions = {}) {
      if (restartOptions.crash) await machine.proc.kill();
      else await machine.proc.stop();
      machine.proc = await launch();
    },
    async stop() {
      await machine.proc.stop();
      state.remove();
      root.remove();
    },
  };
  return machine;
}
