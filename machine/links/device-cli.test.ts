import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCli } from '../desk/cli.ts';
import { DEVICE_CREDENTIAL_FILE } from './device-link.ts';
import { runPrintedCommand, serveDevice } from '../test-support/executor-process.ts';
import { relayAndFolders, startMachineProcess } from '../test-support/machine-process.ts';
import { dispatch, finalOf, is } from '../test-support/relay-suite.ts';
import { makeTestPhone } from '../test-support/test-phone.ts';
import { until } from '../../testkit/until.ts';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function startMachine(args: string[]) {
  const m = startMachineProcess(args);
  cleanups.push(() => m.stop('SIGKILL'));
  return m;
}

/** The enrollment command as printed, indented under the banner. */
const ENROLL_LINE = /^ {2}(DSH_DEVICE_TOKEN=.* npm run device -- enroll .+)$/m;

describe('npm run machine -- --device-lane-port: the machine hosts the device lane', () => {
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

  it('DE5, H6: prints a working enrollment command with the secrets in the environment and the credential only as its owner-only file (reused, never printed); the enrolled executor runs the tools', async () => {
    const { tmp, relay, root, stateDir } = await relayAndFolders(cleanups);
    const args = ['--relay', relay.url, '--root', root, '--state-dir', stateDir];
    const m = startMachine([...args, '--device-lane-port', '0']);
    await until(
      () => ENROLL_LINE.test(m.io.stdout) && m.io.stderr.includes('relay-connected'),
      'the machine to print the enrollment command',
      20_000,
    );
    const command = ENROLL_LINE.exec(m.io.stdout)![1]!;
    const credentialFile = path.join(stateDir, DEVICE_CREDENTIAL_FILE);
    const credential = readFileSync(credentialFile, 'utf8').trim();
    expect(statSync(credentialFile).mode & 0o777).toBe(0o600);
    // H6: the long-lived credential is never printed, only where it lives; both secrets go in
    // the environment, none on the command line (which `ps` shows to every user).
    expect(m.io.stdout + m.io.stderr).not.toContain(credential);
    expect(command).toMatch(
      new RegExp(
        `^DSH_DEVICE_TOKEN=(\\S+) DSH_DEVICE_USER_TOKEN="\\$\\(cat '${credentialFile}'\\)" npm run device -- enroll --server http://127\\.0\\.0\\.1:(\\d+) --workspace '${root}'$`,
      ),
    );
    expect(command).not.toMatch(/--(user-)?token/);
    expect(m.io.stdout).toContain(`The user credential stays in ${credentialFile} (owner-only)`);
    const token = /^DSH_DEVICE_TOKEN=(\S+)/.exec(command)![1]!;
    expect(m.io.stderr).not.toContain(token);

    const keyDir = path.join(tmp.dir, 'key');
    const enrolled = await runPrintedCommand(command, ['--key-dir', keyDir]);
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

    expect(await m.stop('SIGTERM'), m.io.stderr).toBe(0);

    // A second start on the same port (the executor dials the server it enrolled with): the same
    // credential, still unprinted, a new token, the device's enrollment remembered.
    const port = /--server http:\/\/127\.0\.0\.1:(\d+)/.exec(command)![1]!;
    const again = startMachine([...args, '--device-lane-port', port]);
    await until(() => ENROLL_LINE.test(again.io.stdout), 'the second start', 20_000);
    const second = ENROLL_LINE.exec(again.io.stdout)![1]!;
    expect(readFileSync(credentialFile, 'utf8').trim()).toBe(credential);
    expect(again.io.stdout + again.io.stderr).not.toContain(credential);
    expect(/^DSH_DEVICE_TOKEN=(\S+)/.exec(second)![1]).not.toBe(token);
    expect(again.io.stdout).toMatch(/Device: dev_\S+ \(enrolled last/);
    await until(() => again.io.stderr.includes('device-online'), 'the device to reconnect', 30_000);
  }, 90_000);
});
