// `npm run relay`: --help, the one "listening" line, a real client, graceful SIGTERM (1001).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import url from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeCommand } from '../testkit/bundles.ts';
import { connectClient } from './test-support/ws-client.ts';

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const relayBundle = nodeCommand('relay/main.ts');
const runRelay = (...args: string[]) =>
  spawnSync(relayBundle.command, [...relayBundle.args, ...args], { cwd: root, encoding: 'utf8' });
let child: ChildProcess | undefined;
let dir: string | undefined;
afterEach(() => {
  if (child?.pid && child.exitCode === null && child.signalCode === null)
    process.kill(-child.pid, 'SIGKILL');
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  child = dir = undefined;
});

describe('npm run relay', () => {
  it('--help lists every option with its default', () => {
    const r = runRelay('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--port <value>');
    expect(r.stdout).toContain('RELAY_PORT, default 8787');
    expect(r.stdout).toContain('--no-rate-limits');
  });

  it('an unknown option exits 2 with a message', () => {
    const r = runRelay('--nope');
    expect([r.status, r.stderr]).toEqual([2, 'relay: unknown option --nope (see --help)\n']);
  });

  // Through the npm script itself: it runs a plain-JavaScript bundle (tsx's hooks made V8 fall
  // into back-to-back full GCs at 16 KiB, docs/relay.md) and must exec node so signals reach it.
  it('prints "relay listening on ws://HOST:PORT", serves, and on SIGTERM closes sockets with 1001 and exits 0', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-main-'));
    const args = ['run', '--silent', 'relay', '--', '--port', '0', '--log-level', 'warn'];
    const c = spawn('npm', args, {
      cwd: root,
      detached: true, // its own process group, so the whole group can be signalled
      env: { ...process.env, RELAY_DATA_DIR: dir, RELAY_HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      c.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0] as string);
      });
      c.once('exit', (code) => reject(new Error(`relay exited ${code}`)));
    });
    const m = /^relay listening on (ws:\/\/127\.0\.0\.1:(\d+))$/.exec(line);
    expect(m, line).not.toBeNull();
    const client = await connectClient(m?.[1] as string);
    expect(await client.hello('abcdefgh', 'phone')).toMatchObject({ kind: 'hello-ok' });
    const exited = new Promise<number | null>((r) => c.once('exit', (code) => r(code)));
    process.kill(-(c.pid as number), 'SIGTERM');
    expect((await client.closed).code).toBe(1001);
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(dir, 'vapid.json'))).toBe(true);
  });
});
