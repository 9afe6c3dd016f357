import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';

// The real relay as a child process (machine/ may not import relay/): `tsx relay/main.ts
// --port 0 --data-dir <dir>`, ready when it prints `relay listening on ws://HOST:PORT`. It runs in
// its own process group, and stop() kills the whole group and waits until it is gone.

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');
const TSX = path.join(repo, 'node_modules/.bin/tsx');
const START_TIMEOUT_MS = 15_000;

export type RelayProcess = { url: string; port: number; pid: number; stop(): Promise<void> };

export function isGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

export async function startRelayProcess(options: {
  dataDir: string;
  port?: number;
  extraArgs?: string[];
}): Promise<RelayProcess> {
  const child: ChildProcess = spawn(
    TSX,
    [
      'relay/main.ts',
      '--port',
      String(options.port ?? 0),
      '--data-dir',
      options.dataDir,
      '--log-level',
      'warn',
      ...(options.extraArgs ?? []),
    ],
    { cwd: repo, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const pid = child.pid!;
  let stderr = '';
  child.stderr!.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-4000)));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async (): Promise<void> => {
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      return;
    }
    const killer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, 3000);
    await exited;
    clearTimeout(killer);
    // The group's other members (tsx's node child) must be gone too.
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const relayUrl = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`relay did not start in ${START_TIMEOUT_MS} ms: ${stderr}`));
    }, START_TIMEOUT_MS);
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /relay listening on (ws:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!.replace(/\/$/, ''));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`relay exited (${code}) before listening: ${stderr}`));
    });
  });
  return { url: relayUrl, port: Number(new URL(relayUrl).port), pid, stop };
}
