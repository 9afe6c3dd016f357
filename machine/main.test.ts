import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { relayAndFolders, startMachineProcess } from './test-support/machine-process.ts';
import { dispatch, finalOf, is } from './test-support/relay-suite.ts';
import { makeTestPhone } from './test-support/test-phone.ts';
import { runToEnd, startEntry } from '../testkit/process.ts';
import { until } from '../testkit/until.ts';
import { makeTmpDir } from '../testkit/tmp.ts';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('npm run machine (the CLI as a real process) against npm run relay', () => {
  it('pairs with the protocol library; the desk answers an approval locally; the secret never reaches the log stream; SIGTERM stops it', async () => {
    const { relay, root, stateDir } = await relayAndFolders(cleanups);
    const m = startMachineProcess([
      '--relay',
      relay.url,
      '--root',
      root,
      '--state-dir',
      stateDir,
      '--name',
      'cli-test',
    ]);
    cleanups.push(() => m.stop('SIGKILL'));
    const { io } = m;
    await until(
      () => io.stdout.includes('desk commands') && io.stderr.includes('relay-connected'),
      'the machine to start',
      15_000,
    );

    const codeFile = path.join(stateDir, 'pairing-code.txt');
    const code = readFileSync(codeFile, 'utf8').trim();
    expect(statSync(codeFile).mode & 0o777).toBe(0o600);
    expect(io.stdout).toContain(`Pairing code: ${code}`);
    expect(io.stdout).toContain(`Pairing link: http://127.0.0.1:4173/#pair=${code}`);
    expect(io.stdout).toContain('▄'); // the QR code

    const phone = await makeTestPhone({ relayUrl: relay.url, pairingCode: code });
    cleanups.push(() => phone.close());
    expect(await phone.waitFor(is('machine.status'))).toMatchObject({
      machine: 'cli-test',
      allowedRoots: [root],
    });
    const r = await dispatch(phone, { prompt: 'run: echo desk > desk.txt\nsay: done' });
    const a = await phone.waitFor(is('approval.request'));
    await until(
      () => io.stdout.includes(`approval ${a.approvalId.slice(0, 8)}`),
      'the desk to show the approval',
    );
    m.write(`allow ${a.approvalId.slice(0, 8)}\n`);
    expect(await phone.waitFor(is('approval.closed'))).toMatchObject({
      approvalId: a.approvalId,
      resolution: 'local',
    });
    await finalOf(phone, r.sessionId!);
    expect(readFileSync(path.join(root, 'desk.txt'), 'utf8')).toBe('desk\n');
    m.write('bogus\n');
    await until(() => io.stdout.includes('unknown command "bogus"'), 'the desk error');

    const secret = readFileSync(path.join(stateDir, 'pairing-secret'), 'utf8').trim();
    expect(io.stderr).not.toContain(secret);
    expect(io.stderr).not.toContain(code);
    expect(io.stdout.split(secret).length - 1).toBe(0); // the code embeds it base64-wrapped, never raw

    expect(await m.stop('SIGTERM')).toBe(0);
  });

  it('--help lists all; bad arguments exit 2 with a specific message', async () => {
    const run = (args: string[]) => runToEnd(startEntry('machine', 'machine/main.ts', args));
    const [help, bad] = await Promise.all([run(['--help']), run(['--relay', 'http://x'])]);
    expect(help.code).toBe(0);
    expect(help.out).toContain('--allow-full-access');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('[bad-relay-url]');
  });

  it('E10: a bad ACP declaration is refused at start — --acp-agent with bad-acp-agent, <state-dir>/agents.json with bad-agents-file — exit 2, the machine does not start', async () => {
    const tmp = makeTmpDir('agents-file-');
    cleanups.push(() => tmp.cleanup());
    const stateDir = path.join(tmp.dir, 'state');
    mkdirSync(stateDir);
    writeFileSync(path.join(stateDir, 'agents.json'), '{"agents":{"x":{"args":["a"]}}}');
    const run = (args: string[]) => runToEnd(startEntry('machine', 'machine/main.ts', args));
    const [flag, file] = await Promise.all([
      run(['--relay', 'ws://127.0.0.1:9', '--acp-agent', 'just-a-name']),
      run(['--relay', 'ws://127.0.0.1:9', '--state-dir', stateDir]),
    ]);
    expect(flag.code).toBe(2);
    expect(flag.err).toContain(
      '--acp-agent must be name=command [args…]: "just-a-name" [bad-acp-agent]',
    );
    expect(file.code).toBe(2);
    expect(file.err).toContain(
      `${path.join(stateDir, 'agents.json')}: agent x: "command" must be a non-empty string [bad-agents-file]`,
    );
  });
});
