import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shellQuote } from './links/device-link.ts';
import { EVIL, startHostileRelay } from './test-support/hostile-relay.ts';
import { relayAndFolders, startMachineProcess } from './test-support/machine-process.ts';
import { nodeCommand } from '../testkit/bundles.ts';
import { startProcess } from '../testkit/process.ts';
import { dispatch, is } from './test-support/relay-suite.ts';
import { TERMINAL_CONTROL } from './test-support/terminal-capture.ts';
import { makeTestPhone } from './test-support/test-phone.ts';
import { makeTmpDir } from '../testkit/tmp.ts';
import { until } from '../testkit/until.ts';

// `npm run machine` at a real terminal (a pty from util-linux `script`) and against a relay that
// sends text made to drive a terminal.

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('U5: the desk at a real terminal', () => {
  it('U5: at a terminal the desk is quiet (no relay or presence lines), a line printed mid-typing leaves the typed text whole, and Ctrl-C stops it', async () => {
    const { relay, root, stateDir } = await relayAndFolders(cleanups);
    const machine = nodeCommand('machine/main.ts');
    const command = [machine.command, ...machine.args]
      .concat(['--relay', relay.url, '--root', root, '--state-dir', stateDir])
      .map(shellQuote)
      .join(' ');
    // `script` gives the machine a pty for stdin, stdout and stderr; what we write is typed.
    const pty = startProcess('script', 'script', ['-qfec', command, '/dev/null'], {
      env: { TERM: 'xterm' },
    });
    cleanups.push(() => pty.kill());
    const screen = () => pty.stdout();
    await pty.waitForOutput(/desk> /, 20_000);
    const code = readFileSync(path.join(stateDir, 'pairing-code.txt'), 'utf8').trim();
    const phone = await makeTestPhone({ relayUrl: relay.url, pairingCode: code });
    cleanups.push(() => phone.close());
    await phone.waitFor(is('machine.status'), 10_000);

    pty.write('allo');
    await pty.waitForOutput(/allo/); // the typed text, echoed
    await dispatch(phone, { prompt: 'run: echo typed-desk > desk.txt' });
    const a = await phone.waitFor(is('approval.request'));
    const shortId = a.approvalId.slice(0, 8);
    // The approval is printed above the prompt; the prompt and the half-typed line are drawn again
    // below it, in a write of their own that may reach the pty after the line's.
    await pty.waitForOutput(new RegExp(`▶ approval ${shortId}[^\n]*\n[^\n]*desk> allo`));
    pty.write(`w ${shortId}\r`);
    expect(await phone.waitFor(is('approval.closed'), 10_000)).toMatchObject({
      approvalId: a.approvalId,
      resolution: 'local',
    });
    // Quiet by default at a terminal: no relay or presence lines.
    expect(screen()).not.toMatch(/relay-connected|phone-presence/);

    pty.write('\u0003');
    expect((await pty.exited).code).toBe(0);
  }, 60_000);
});

describe('H5: a hostile relay against the real process', () => {
  it('H5: error text from the relay reaches neither the log stream nor the desk raw; neither does a machine name', async () => {
    const relay = await startHostileRelay([
      {
        kind: 'error',
        code: `limit${EVIL.clear}`,
        message: `${EVIL.hidden}hidden${EVIL.title} and ${EVIL.clipboard}copied`,
      },
    ]);
    cleanups.push(() => relay.close());
    const tmp = makeTmpDir();
    cleanups.push(tmp.cleanup);
    const m = startMachineProcess([
      '--relay',
      relay.url,
      '--state-dir',
      path.join(tmp.dir, 'state'),
      '--name',
      `desk${EVIL.title}top`,
    ]);
    cleanups.push(() => m.stop('SIGKILL'));
    await until(
      () => m.io.stdout.includes('!! relay error') && m.io.stderr.includes('relay-limit'),
      'the relay error on the desk and in the log',
      20_000,
    );
    expect(m.io.stdout).toContain('!! relay error limit: hidden and copied');
    expect(m.io.stdout).toContain('machine "desktop"');
    expect(m.io.stdout).not.toMatch(TERMINAL_CONTROL);
    expect(m.io.stderr).not.toMatch(TERMINAL_CONTROL);
  }, 60_000);
});
