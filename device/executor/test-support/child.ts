// The executor as a real child process, for the tests that kill it (kill -9 must hit a real
// process) and for the benchmark: its bundle under plain node (testkit/bundles.ts; tsx costs
// ~0.8 s per start here).
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { bundled } from '../../../testkit/bundles.ts';
import { startProcess, type Exit, type TestProcess } from '../../../testkit/process.ts';
import { readProcStat } from '../proc/proc-stat.ts';

/** device/main.ts as one ESM file inside node_modules/.cache (so `ws` still resolves). */
export const bundleExecutor = (): Promise<string> => bundled('device/main.ts');

export type ExecutorChild = {
  readonly child: TestProcess['child'];
  readonly pid: number;
  /** Everything the process wrote to stdout / stderr (its log lines go to stderr). */
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<Exit>;
};

/** In the test's own process group (as a user's shell would start it), with exactly `env`. */
export const spawnExecutor = async (
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExecutorChild> => {
  const main = await bundleExecutor();
  const p = startProcess('executor', process.execPath, [main, ...args], {
    env,
    replaceEnv: true,
    ownGroup: false,
    closeStdin: true,
  });
  await new Promise((r, j) => {
    p.child.once('spawn', r);
    p.child.once('error', j);
  });
  return { child: p.child, pid: p.pid, stdout: p.stdout, stderr: p.stderr, exited: p.exited };
};

/** Inodes of the sockets a process holds open. */
export const socketInodes = (pid: number): Set<string> => {
  const out = new Set<string>();
  for (const fd of readdirSafe(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.add(m[1] as string);
    } catch {
      // fd closed meanwhile
    }
  }
  return out;
};

/** Listening TCP sockets (state 0A), bound UDP sockets and listening unix sockets, by inode. */
export const listeningInodes = (): Set<string> => {
  const out = new Set<string>();
  for (const f of ['tcp', 'tcp6']) {
    for (const line of readLines(`/proc/net/${f}`)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') out.add(cols[9] as string);
    }
  }
  for (const f of ['udp', 'udp6']) {
    for (const line of readLines(`/proc/net/${f}`)) out.add(line.trim().split(/\s+/)[9] as string);
  }
  for (const line of readLines('/proc/net/unix')) {
    const cols = line.trim().split(/\s+/);
    // Flags 00010000 = __SO_ACCEPTCON: a listening unix socket.
    if (cols[3] === '00010000') out.add(cols[6] as string);
  }
  return out;
};

const readLines = (p: string) => {
  try {
    return readFileSync(p, 'utf8').split('\n').slice(1).filter(Boolean);
  } catch {
    return [];
  }
};
const readdirSafe = (p: string) => {
  try {
    return readdirSync(p);
  } catch {
    return [];
  }
};

export const isAliveProcess = (pid: number) => {
  const s = readProcStat(pid);
  return s !== null && s.state !== 'Z' && s.state !== 'X';
};
