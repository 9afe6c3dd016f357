// One real child process for a test, in its own process group (unless told otherwise): its output
// kept, waited for by what it prints, and stopped by signalling the whole group, waiting for the
// exit (SIGKILL after a grace), then until the leader is gone from /proc (a zombie counts as gone).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { REPO, nodeCommand } from './bundles.ts';
import { isGone, signalGroup } from './process-group.ts';
import { until } from './until.ts';

const WAIT_TIMEOUT_MS = 20_000;
const STOP_GRACE_MS = 10_000;

export type Exit = { code: number | null; signal: NodeJS.Signals | null };

export type StartOptions = {
  cwd?: string;
  /** Added over this process's environment (or, with `replaceEnv`, the whole environment). */
  env?: NodeJS.ProcessEnv;
  replaceEnv?: boolean;
  /** Default true: the child leads its own group, so stop() reaches everything it started. */
  ownGroup?: boolean;
  /** Ends stdin at once: the child reads end-of-file, as from /dev/null. */
  closeStdin?: boolean;
};

export type StopOptions = {
  signal?: NodeJS.Signals;
  /** SIGKILL to the group when it has not exited by then. */
  graceMs?: number;
  /** After the exit, SIGKILL whatever of the group outlived its leader. */
  killLeftovers?: boolean;
};

export type TestProcess = {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Everything written so far. */
  stdout(): string;
  stderr(): string;
  /** Every complete line so far, stdout and stderr interleaved as they came. */
  readonly lines: string[];
  readonly exited: Promise<Exit>;
  /** The exit, once stdout and stderr are read to their end too. */
  readonly closed: Promise<Exit>;
  hasExited(): boolean;
  /** The first line (either stream, past or future) matching; rejects on exit or timeout. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** The first match in the whole of stdout (past or future); rejects on exit or timeout. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  write(text: string): void;
  /** Sends `signal` to the group (or the process alone when it has no group of its own). */
  signal(signal: NodeJS.Signals): void;
  /** SIGSTOP to the group: its sockets stay open but nothing is read or sent. */
  freeze(): void;
  stop(options?: StopOptions): Promise<Exit>;
  /** SIGKILL to the group, waiting until it is gone: a crash, not a shutdown. */
  kill(): Promise<Exit>;
};

export function startProcess(
  name: string,
  command: string,
  args: string[],
  options: StartOptions = {},
): TestProcess {
  const ownGroup = options.ownGroup ?? true;
  const child = spawn(command, args, {
    cwd: options.cwd ?? REPO,
    env: options.replaceEnv ? options.env : { ...process.env, ...options.env },
    detached: ownGroup,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => {}); // a write after the child closed its stdin is not the test's failure
  if (options.closeStdin) child.stdin.end();
  const pid = child.pid ?? -1;
  const io = { stdout: '', stderr: '' };
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let exit: Exit | null = null;
  const exited = new Promise<Exit>((resolve) => {
    const done = (e: Exit) => {
      exit ??= e;
      resolve(exit);
      for (const w of [...waiters]) w();
    };
    child.once('exit', (code, signal) => done({ code, signal }));
    child.once('error', () => done({ code: null, signal: null })); // never started
  });
  const take = (stream: 'stdout' | 'stderr') => {
    let rest = '';
    return (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      io[stream] += text;
      const parts = (rest + text).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
      for (const w of [...waiters]) w();
    };
  };
  const closed = new Promise<Exit>((resolve) =>
    child.once('close', (code, signal) => resolve(exit ?? { code, signal })),
  );
  child.stdout.on('data', take('stdout'));
  child.stderr.on('data', take('stderr'));

  const waitUntilFound = (
    find: () => RegExpExecArray | null,
    what: string,
    timeoutMs: number,
  ): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const finish = (fn: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        fn();
      };
      const tail = () => `\n${lines.slice(-30).join('\n')}`;
      const check = () => {
        const m = find();
        if (m) finish(() => resolve(m));
        else if (exit)
          finish(() =>
            reject(new Error(`${name} exited (${exitText(exit!)}) before ${what}${tail()}`)),
          );
      };
      const timer = setTimeout(
        () =>
          finish(() => reject(new Error(`${name}: no ${what} within ${timeoutMs} ms${tail()}`))),
        timeoutMs,
      );
      waiters.add(check);
      check();
    });

  const signal = (sig: NodeJS.Signals) => {
    if (exit) return;
    if (ownGroup) signalGroup(pid, sig);
    else child.kill(sig);
  };
  let stopping: Promise<Exit> | null = null;
  const stop = (o: StopOptions = {}): Promise<Exit> =>
    (stopping ??= (async () => {
      signal(o.signal ?? 'SIGTERM');
      const killer = setTimeout(() => signal('SIGKILL'), o.graceMs ?? STOP_GRACE_MS);
      const e = await exited;
      clearTimeout(killer);
      if (o.killLeftovers && ownGroup) signalGroup(pid, 'SIGKILL');
      await until(() => isGone(pid), `${name} (${pid}) to be gone`, WAIT_TIMEOUT_MS);
      return e;
    })());

  return {
    name,
    pid,
    child,
    stdout: () => io.stdout,
    stderr: () => io.stderr,
    lines,
    exited,
    closed,
    hasExited: () => exit !== null,
    waitForLine(pattern, timeoutMs = WAIT_TIMEOUT_MS) {
      let seen = 0;
      const find = () => {
        for (; seen < lines.length; seen++) {
          const m = pattern.exec(lines[seen]!);
          if (m) return m;
        }
        return null;
      };
      return waitUntilFound(find, `line matching ${pattern}`, timeoutMs);
    },
    waitForOutput(pattern, timeoutMs = WAIT_TIMEOUT_MS) {
      return waitUntilFound(() => pattern.exec(io.stdout), `output matching ${pattern}`, timeoutMs);
    },
    write: (text) => void child.stdin.write(text),
    signal,
    freeze: () => signal('SIGSTOP'),
    stop,
    kill: () => stop({ signal: 'SIGKILL' }),
  };
}

/** A product entry (testkit/bundles.ts) as a process: `node <its bundle> …args`. */
export function startEntry(
  name: string,
  entry: string,
  args: string[],
  options: StartOptions = {},
): TestProcess {
  const run = nodeCommand(entry);
  return startProcess(name, run.command, [...run.args, ...args], options);
}

/** Waits for `ready` among its lines; on failure stops the process and rethrows. */
export async function whenReady(
  p: TestProcess,
  ready: RegExp,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<RegExpExecArray> {
  try {
    return await p.waitForLine(ready, timeoutMs);
  } catch (e) {
    await p.stop({ killLeftovers: true });
    throw e;
  }
}

/** Runs to the end; SIGKILL to the group (and a rejection) when it outlasts `timeoutMs`. */
export async function runToEnd(
  p: TestProcess,
  timeoutMs = WAIT_TIMEOUT_MS,
): Promise<Exit & { out: string; err: string }> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      p.signal('SIGKILL');
      reject(new Error(`${p.name} did not finish within ${timeoutMs} ms: ${p.stderr()}`));
    }, timeoutMs);
  });
  try {
    const e = await Promise.race([p.closed, late]);
    return { ...e, out: p.stdout(), err: p.stderr() };
  } finally {
    clearTimeout(timer);
  }
}

function exitText(e: Exit): string {
  return e.signal ? `signal ${e.signal}` : `code ${e.code}`;
}
