// Real child processes for the e2e suite: the relay and the mock machine run as their bundles
// (bundles.ts) in their own process groups, are waited for by the line they print when ready, and are
// stopped by signalling the whole group and waiting until it is gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { nodeCommand } from './bundles.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;

export type Proc = {
  child: ChildProcess;
  /** Everything printed so far (stdout and stderr), line by line. */
  lines: string[];
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  write(line: string): void;
  stop(): Promise<void>;
  /** Freezes the whole group (SIGSTOP): its sockets stay open but nothing is read or sent. */
  freeze(): void;
  /** SIGKILL to the whole group, waiting until it is gone: a crash, not a shutdown. */
  kill(): Promise<void>;
};

export function startProcess(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Proc {
  const run = nodeCommand(script);
  const child = spawn(run.command, [...run.args, ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, FORCE_COLOR: '0', ...env },
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let exited = false;
  const exitedPromise = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      r();
      for (const w of waiters) w();
    }),
  );
  const take = (chunk: Buffer, buffer: { rest: string }) => {
    buffer.rest += chunk.toString('utf8');
    const parts = buffer.rest.split('\n');
    buffer.rest = parts.pop() ?? '';
    for (const line of parts) lines.push(line);
    for (const w of waiters) w();
  };
  const out = { rest: '' };
  const err = { rest: '' };
  child.stdout!.on('data', (c: Buffer) => take(c, out));
  child.stderr!.on('data', (c: Buffer) => take(c, err));

  return {
    child,
    lines,
    waitForLine(pattern, timeoutMs = READY_TIMEOUT_MS) {
      return new Promise((resolvePromise, reject) => {
        let seen = 0;
        const check = () => {
          for (; seen < lines.length; seen++) {
            const m = pattern.exec(lines[seen]!);
            if (m) return done(() => resolvePromise(m));
          }
          if (exited)
            done(() =>
              reject(new Error(`${name} exited before printing ${pattern}:\n${lines.join('\n')}`)),
            );
        };
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(
                  `${name}: no line matching ${pattern} within ${timeoutMs} ms:\n${lines.slice(-30).join('\n')}`,
                ),
              ),
            ),
          timeoutMs,
        );
        const done = (fn: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          fn();
        };
        waiters.add(check);
        check();
      });
    },
    write(line) {
      child.stdin!.write(`${line}\n`);
    },
    freeze() {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGSTOP');
    },
    async kill() {
      if (exited || child.pid === undefined) return;
      process.kill(-child.pid, 'SIGKILL');
      await exitedPromise;
    },
    async stop() {
      if (exited || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, STOP_TIMEOUT_MS);
      await exitedPromise;
      clearTimeout(timer);
    },
  };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `dsh-e2e-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
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
