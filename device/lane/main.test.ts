import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALICE } from '../test-support/lane-fixture.ts';
import { connectTestDevice, enrollTestDevice } from '../test-support/test-device.ts';

const MAIN = new URL('./main.ts', import.meta.url).pathname;
const children: ChildProcess[] = [];
let dir = '';

afterEach(() => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) process.kill(-c.pid!, 'SIGKILL');
  children.length = 0;
  if (dir !== '') rmSync(dir, { recursive: true, force: true });
});

/** Starts the lane as its own process group and resolves with the line it prints. */
const startProcess = (dataDir: string, usersFile: string) =>
  new Promise<{ child: ChildProcess; url: string; wsUrl: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', MAIN, '--data-dir', dataDir, '--users-file', usersFile],
      {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    let out = '';
    let errText = '';
    child.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined)
        resolve({ child, ...(JSON.parse(line) as { url: string; wsUrl: string }) });
    });
    child.once('exit', (code) => reject(new Error(`lane exited ${code}: ${errText}`)));
  });
const exited = (c: ChildProcess) =>
  new Promise<number | string | null>((r) =>
    c.exitCode !== null || c.signalCode !== null
      ? r(c.exitCode ?? c.signalCode)
      : c.once('exit', (code, sig) => r(code ?? sig)),
  );

describe('the lane as a process: the registry survives kill -9', () => {
  it('a device enrolled before the host was killed can still hello, and gen keeps counting', async () => {
    dir = mkdtempSync(join(tmpdir(), 'device-lane-proc-'));
    const usersFile = join(dir, 'users.json');
    writeFileSync(usersFile, JSON.stringify({ [ALICE]: 'alice' }), { mode: 0o600 });
    const dataDir = join(dir, 'data');

    const a = await startProcess(dataDir, usersFile);
    const id = await enrollTestDevice(a.url, ALICE);
    const d1 = await connectTestDevice(a.wsUrl, id);
    expect(await d1.hello()).toMatchObject({ t: 'helloAck', gen: '1' });
    process.kill(-a.child.pid!, 'SIGKILL');
    await exited(a.child);
    await d1.closed;

    const b = await startProcess(dataDir, usersFile);
    const d2 = await connectTestDevice(b.wsUrl, id);
    expect(await d2.hello()).toMatchObject({ t: 'helloAck', gen: '2' });
    // SIGTERM drains: the device is told, the process exits 0
    process.kill(-b.child.pid!, 'SIGTERM');
    expect(await d2.next('bye')).toMatchObject({ reason: 'draining' });
    expect(await exited(b.child)).toBe(0);
  });
});
