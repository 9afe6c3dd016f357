// The relay as its own process (`node --import tsx relay/main.ts …`: no wrapper process between,
// so the exit code and signals are the relay's own; its own data dir), for
// tests that measure it from outside: its event loop is then not shared with the test's clients
// and fake services. stderr (the JSON log) is kept for a failing test to print.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import url from 'node:url';

const STOP_GRACE_MS = 10_000;
const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');

export type RelayProcess = {
  url: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
  /** SIGTERM, wait for the exit; returns the exit code (null when killed by a signal). Removes
   * the data dir. */
  stop(): Promise<number | null>;
};

export async function startRelayProcess(args: string[]): Promise<RelayProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-proc-'));
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'relay/main.ts',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...args,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    if (err.length < 1_000_000) err += d.toString();
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    void exited.then((code) => reject(new Error(`relay exited ${code}: ${err.slice(0, 2_000)}`)));
  });
  const wsUrl = line.replace('relay listening on ', '');
  return {
    url: wsUrl,
    port: Number(new URL(wsUrl).port),
    child,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // A relay that does not finish its shutdown is killed, so no test can leave it behind.
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      const code = await exited;
      clearTimeout(kill);
      fs.rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
