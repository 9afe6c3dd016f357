// A part of the product as a real child process (its bundle, bundles.ts: `relay/main.ts …`)
// in its own process group: ready when its stdout matches, stop() kills the whole group and
// waits for the exit (e2e/ may not import relay/ or machine/).
import { spawn } from 'node:child_process';
import path from 'node:path';
import url from 'node:url';
import { nodeCommand } from './bundles.ts';

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 3_000;

export type Child = {
  pid: number;
  /** stdout so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in stdout (past or future). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  writeLine(line: string): void;
  stop(): Promise<void>;
};

export async function startChild(name: string, args: string[], ready: RegExp): Promise<Child> {
  const [script = '', ...rest] = args;
  const run = nodeCommand(script);
  const child = spawn(run.command, [...run.args, ...rest], {
    cwd: repo,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (b: Buffer) => {
    out += b.toString();
    listeners.forEach((l) => l());
  });
  child.stderr.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }, STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
    try {
      process.kill(-pid, 'SIGKILL'); // anything of its group that outlived it
    } catch {
      // already gone
    }
  };
  const waitFor = (pattern: RegExp, timeoutMs = START_TIMEOUT_MS) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(out);
        if (!m) return;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(m);
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${name}: no ${pattern} within ${timeoutMs} ms\n${out}\n${err}`));
      }, timeoutMs);
      listeners.add(check);
      check();
    });
  const handle: Child = {
    pid,
    output: () => out,
    waitFor,
    writeLine: (line) => void child.stdin.write(`${line}\n`),
    stop,
  };
  try {
    await Promise.race([
      waitFor(ready),
      exited.then(() => {
        throw new Error(`${name} exited before it was ready:\n${out}\n${err}`);
      }),
    ]);
  } catch (e) {
    await stop();
    throw e;
  }
  return handle;
}
