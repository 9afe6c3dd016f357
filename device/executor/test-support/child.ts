// The executor as a real child process, for the tests that kill it (kill -9 must hit a real
// process) and for the benchmark. tsx costs ~0.8 s per start here, so device/main.ts is bundled
// once with esbuild (tsx's own transpiler, pinned in devDependencies) and started with plain node.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { readProcStat } from '../proc/proc-stat.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

let bundled: Promise<string> | null = null;

/** device/main.ts as one ESM file inside node_modules/.cache (so `ws` still resolves). */
export const bundleExecutor = (): Promise<string> => {
  bundled ??= (async () => {
    const dir = join(REPO, 'node_modules/.cache/dsh-device-executor');
    mkdirSync(dir, { recursive: true });
    const out = join(dir, 'main.mjs');
    const temp = join(dir, `main.${randomBytes(4).toString('hex')}.mjs`);
    await build({
      entryPoints: [join(REPO, 'device/main.ts')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: temp,
      logLevel: 'silent',
    });
    renameSync(temp, out);
    return out;
  })();
  return bundled;
};

export type ExecutorChild = {
  readonly child: ChildProcessByStdio<null, Readable, Readable>;
  readonly pid: number;
  /** Everything the process wrote to stdout / stderr (its log lines go to stderr). */
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

export const spawnExecutor = async (
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExecutorChild> => {
  const main = await bundleExecutor();
  const child = spawn(process.execPath, [main, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  await new Promise((r, j) => {
    child.once('spawn', r);
    child.once('error', j);
  });
  return { child, pid: child.pid as number, stdout: () => out, stderr: () => err, exited };
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
