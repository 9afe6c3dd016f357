// A part of the product as a real child process (its bundle, testkit/bundles.ts: `relay/main.ts
// …`) in its own process group: ready when its stdout matches, stop() kills the whole group and
// waits for the exit (e2e/ may not import relay/ or machine/).
import { startEntry } from '../../testkit/process.ts';

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
  const p = startEntry(name, script, rest);
  const stop = async () => void (await p.stop({ graceMs: STOP_GRACE_MS, killLeftovers: true }));
  try {
    await p.waitForOutput(ready, START_TIMEOUT_MS);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    pid: p.pid,
    output: () => p.stdout(),
    waitFor: (pattern, timeoutMs = START_TIMEOUT_MS) => p.waitForOutput(pattern, timeoutMs),
    writeLine: (line) => p.write(`${line}\n`),
    stop,
  };
}
