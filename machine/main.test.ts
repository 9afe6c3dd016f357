import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startRelayProcess, isGone } from './test-support/relay-process.ts';
import { dispatch, finalOf, is } from './test-support/relay-suite.ts';
import { makeTestPhone } from './test-support/test-phone.ts';
import { makeTmpDir } from './test-support/tmp.ts';
import { until } from './test-support/until.ts';

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('npm run machine (the CLI as a real process) against npm run relay', () => {
  it('pairs with the protocol library; the desk answers an approval locally; the secret never reaches the log stream; SIGTERM stops it', async () => {
    const tmp = makeTmpDir();
    cleanups.push(tmp.cleanup);
    const relay = await startRelayProcess({ dataDir: path.join(tmp.dir, 'relay') });
    cleanups.push(() => relay.stop());
    const root = path.join(tmp.dir, 'root');
    mkdirSync(root);
    const stateDir = path.join(tmp.dir, 'state');
    // One process (tsx as a loader, not its wrapper), so the exit code is the machine's own: the
    // wrapper turns a forwarded signal into 128+n when its relay races a loaded machine.
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'machine/main.ts',
        '--relay',
        relay.url,
        '--root',
        root,
        '--state-dir',
        stateDir,
        '--name',
        'cli-test',
      ],
      { cwd: repo, detached: true, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const pid = child.pid!;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    cleanups.push(async () => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // already gone
      }
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (stderr += b.toString()));
    await until(
      () => stdout.includes('desk commands') && stderr.includes('relay-connected'),
      'the machine to start',
      15_000,
    );

    const codeFile = path.join(stateDir, 'pairing-code.txt');
    const code = readFileSync(codeFile, 'utf8').trim();
    expect(statSync(codeFile).mode & 0o777).toBe(0o600);
    expect(stdout).toContain(`Pairing code: ${code}`);
    expect(stdout).toContain(`Pairing link: http://127.0.0.1:4173/#pair=${code}`);
    expect(stdout).toContain('▄'); // the QR code

    const phone = await makeTestPhone({ relayUrl: relay.url, pairingCode: code });
    cleanups.push(() => phone.close());
    expect(await phone.waitFor(is('machine.status'))).toMatchObject({
      machine: 'cli-test',
      allowedRoots: [root],
    });
    const r = await dispatch(phone, { prompt: 'run: echo desk > desk.txt\nsay: done' });
    const a = await phone.waitFor(is('approval.request'));
    await until(
      () => stdout.includes(`approval ${a.approvalId.slice(0, 8)}`),
      'the desk to show the approval',
    );
    child.stdin!.write(`allow ${a.approvalId.slice(0, 8)}\n`);
    expect(await phone.waitFor(is('approval.closed'))).toMatchObject({
      approvalId: a.approvalId,
      resolution: 'local',
    });
    await finalOf(phone, r.sessionId!);
    expect(readFileSync(path.join(root, 'desk.txt'), 'utf8')).toBe('desk\n');
    child.stdin!.write('bogus\n');
    await until(() => stdout.includes('unknown command "bogus"'), 'the desk error');

    const secret = readFileSync(path.join(stateDir, 'pairing-secret'), 'utf8').trim();
    expect(stderr).not.toContain(secret);
    expect(stderr).not.toContain(code);
    expect(stdout.split(secret).length - 1).toBe(0); // the code embeds it base64-wrapped, never raw

    process.kill(-pid, 'SIGTERM');
    expect(await exited).toBe(0);
    await until(() => isGone(pid), 'the process group to be gone');
  });

  it('--help lists all; bad arguments exit 2 with a specific message', async () => {
    const run = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const c = spawn(path.join(repo, 'node_modules/.bin/tsx'), ['machine/main.ts', ...args], {
          cwd: repo,
        });
        let out = '';
        let err = '';
        c.stdout.on('data', (b: Buffer) => (out += b.toString()));
        c.stderr.on('data', (b: Buffer) => (err += b.toString()));
        c.once('close', (code) => resolve({ code, out, err }));
      });
    const [help, bad] = await Promise.all([run(['--help']), run(['--relay', 'http://x'])]);
    expect(help.code).toBe(0);
    expect(help.out).toContain('--allow-full-access');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('[bad-relay-url]');
  });
});
