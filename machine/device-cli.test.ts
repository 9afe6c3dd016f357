import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCli } from './cli.ts';
import { DEVICE_CREDENTIAL_FILE } from './device-link.ts';
import { runDeviceCommand, serveDevice } from './test-support/executor-process.ts';
import { isGone, startRelayProcess } from './test-support/relay-process.ts';
import { dispatch, finalOf, is } from './test-support/relay-suite.ts';
import { makeTestPhone } from './test-support/test-phone.ts';
import { makeTmpDir } from './test-support/tmp.ts';
import { until } from './test-support/until.ts';

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function startMachine(args: string[]) {
  const child = spawn(path.join(repo, 'node_modules/.bin/tsx'), ['machine/main.ts', ...args], {
    cwd: repo,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  const io = { stdout: '', stderr: '' };
  child.stdout!.on('data', (b: Buffer) => (io.stdout += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (io.stderr += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  cleanups.push(async () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await until(() => isGone(pid), 'the machine to be gone');
  });
  return { pid, io, exited };
}

/** `--name value` or `--name=value` (secrets use the latter: they may begin with '-'). */
const valueOf = (args: string[], name: string): string => {
  const joined = args.find((a) => a.startsWith(`${name}=`));
  return joined !== undefined ? joined.slice(name.length + 1) : args[args.indexOf(name) + 1]!;
};

const ENROLL_LINE = /npm run device -- enroll (.+)$/m;

describe('npm run machine -- --device-lane-port (issue 6 §5)', () => {
  it('--device-lane-port must be a port: bad-device-lane-port', () => {
    for (const bad of ['x', '65536', '1.5', '80a']) {
      expect(parseCli(['--relay', 'ws://127.0.0.1:1', '--device-lane-port', bad])).toMatchObject({
        ok: false,
        code: 'bad-device-lane-port',
      });
    }
    expect(parseCli(['--relay', 'ws://127.0.0.1:1', '--device-lane-port', '0'])).toMatchObject({
      ok: true,
      options: { deviceLanePort: 0 },
    });
  });

  it('§5: prints a working enrollment command (fresh token, owner-only credential kept in the state dir and reused); the enrolled executor runs the tools', async () => {
    const tmp = makeTmpDir();
    cleanups.push(tmp.cleanup);
    const relay = await startRelayProcess({ dataDir: path.join(tmp.dir, 'relay') });
    cleanups.push(() => relay.stop());
    const root = path.join(tmp.dir, 'root');
    mkdirSync(root);
    const stateDir = path.join(tmp.dir, 'state');
    const args = ['--relay', relay.url, '--root', root, '--state-dir', stateDir];
    const m = startMachine([...args, '--device-lane-port', '0']);
    await until(
      () => ENROLL_LINE.test(m.io.stdout) && m.io.stderr.includes('relay-connected'),
      'the machine to print the enrollment command',
      20_000,
    );
    const enrollArgs = ENROLL_LINE.exec(m.io.stdout)![1]!.split(' ');
    const flag = (name: string) => valueOf(enrollArgs, name);
    const credentialFile = path.join(stateDir, DEVICE_CREDENTIAL_FILE);
    expect(statSync(credentialFile).mode & 0o777).toBe(0o600);
    expect(flag('--user-token')).toBe(readFileSync(credentialFile, 'utf8').trim());
    expect(flag('--workspace')).toBe(root);
    expect(flag('--server')).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // Secrets travel as --flag=value: a base64url value may begin with '-'.
    expect(enrollArgs).toContain(`--token=${flag('--token')}`);
    expect(enrollArgs).toContain(`--user-token=${flag('--user-token')}`);
    // Neither secret reaches the log stream.
    expect(m.io.stderr).not.toContain(flag('--token'));
    expect(m.io.stderr).not.toContain(flag('--user-token'));

    const keyDir = path.join(tmp.dir, 'key');
    const enrolled = await runDeviceCommand([
      'enroll',
      ...enrollArgs.filter((a) => a !== 'enroll'),
      '--key-dir',
      keyDir,
    ]);
    expect(enrolled.code, enrolled.err).toBe(0);
    const executor = serveDevice(keyDir, { DEVICE_MARK: 'on-device' });
    cleanups.push(() => executor.stop('SIGKILL'));
    await until(() => m.io.stderr.includes('device-online'), 'the device to connect', 20_000);

    const code = readFileSync(path.join(stateDir, 'pairing-code.txt'), 'utf8').trim();
    const phone = await makeTestPhone({ relayUrl: relay.url, pairingCode: code });
    cleanups.push(() => phone.close());
    const r = await dispatch(phone, { prompt: 'run: echo [$DEVICE_MARK]' });
    const a = await phone.waitFor(is('approval.request'), 10_000);
    phone.send({
      type: 'approval.respond',
      requestId: crypto.randomUUID(),
      approvalId: a.approvalId,
      decision: 'allow',
    });
    expect((await finalOf(phone, r.sessionId!)).summary).toContain('(exit 0): [on-device]');

    process.kill(-m.pid, 'SIGTERM');
    expect(await m.exited, m.io.stderr).toBe(0);

    // A second start on the same port (the executor dials the server it enrolled with): the same
    // credential, a new token, the device's enrollment remembered.
    const port = new URL(flag('--server')).port;
    const again = startMachine([...args, '--device-lane-port', port]);
    await until(() => ENROLL_LINE.test(again.io.stdout), 'the second start', 20_000);
    const second = ENROLL_LINE.exec(again.io.stdout)![1]!.split(' ');
    expect(valueOf(second, '--user-token')).toBe(flag('--user-token'));
    expect(valueOf(second, '--token')).not.toBe(flag('--token'));
    await until(() => again.io.stderr.includes('device-online'), 'the device to reconnect', 30_000);
  }, 90_000);
});
