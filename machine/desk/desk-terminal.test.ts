import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DESK_HELP, attachDesk, runDeskLine } from './desk.ts';
import { HELP_TEXT } from './cli.ts';
import { deskLog } from '../log.ts';
import { createMachine } from '../machine.ts';
import { makeTerminal } from './terminal.ts';
import { EVIL, startHostileRelay } from '../test-support/hostile-relay.ts';
import { dispatch, is, relaySuite } from '../test-support/relay-suite.ts';
import { captureStream, TERMINAL_CONTROL, typedInput } from '../test-support/terminal-capture.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { until } from '../../testkit/until.ts';

// The desk as a person sees it: what `help` says, and that text from a relay or a phone never
// drives the terminal (H5). The terminal here is a plain (non-interactive) one writing into a
// capture, so every byte the desk and its log print can be checked.

const suite = relaySuite();
const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ALL_EVIL = Object.values(EVIL).join('');

function deskTerminal() {
  const input = typedInput();
  const out = captureStream();
  const terminal = makeTerminal({ input, output: out.stream, interactive: false });
  return { input, out, terminal };
}

describe('U5: the desk', () => {
  it('U5: help lists the desk commands (not the command line usage)', async () => {
    const w = await suite.world();
    const [help] = runDeskLine(w.machine, 'help');
    expect(help).toBe(DESK_HELP);
    for (const cmd of ['list', 'allow <id>', 'answer <id>', 'sessions', 'status', 'help'])
      expect(help).toContain(cmd);
    expect(help).not.toContain('--relay');
    expect(help).not.toContain('Usage:');
    // The command line's help still shows the desk's commands, from the same text.
    expect(HELP_TEXT).toContain(DESK_HELP);
  });

  it('U5: status says whether the relay is connected, a phone is online, and what is pending', async () => {
    const w = await suite.world();
    await w.phone();
    await until(() => w.machine.status().phoneOnline, 'the phone to be seen');
    w.machine.raiseApproval({ title: 't', detail: 'd' });
    expect(runDeskLine(w.machine, 'status')).toEqual([
      'relay: connected',
      'phone: online',
      'pending: 1 approvals, 0 questions',
      'sessions: 1 live, 1 kept',
    ]);
  });
});

describe('H5: outside text never drives the machine terminal', () => {
  it("H5: a phone's prompt, command, question and session title reach the desk without escape sequences", async () => {
    const w = await suite.world();
    const { input, out, terminal } = deskTerminal();
    cleanups.push(attachDesk(w.machine, terminal, { verbose: true }));
    const phone = await w.phone();
    await dispatch(phone, { prompt: `run: echo ${ALL_EVIL}done` });
    await phone.waitFor(is('approval.request'));
    await dispatch(phone, {
      prompt: `ask: Pick${EVIL.title} one | ${EVIL.hidden}a | b${EVIL.clipboard}`,
    });
    await phone.waitFor(is('question.request'));
    input.write('sessions\nlist\n');
    await until(() => out.text().includes('awaiting_approval'), 'the sessions listing');
    await until(() => out.text().split('Pick one').length >= 3, 'the list');
    expect(out.text()).toContain('echo done');
    expect(out.text()).not.toMatch(TERMINAL_CONTROL);
  });

  it('H5: error codes and messages from the relay are printed without escape sequences, on the desk and in its log', async () => {
    const relay = await startHostileRelay([
      {
        kind: 'error',
        code: `limit${EVIL.clear}`,
        message: `${EVIL.hidden}relay says${EVIL.title} hello${EVIL.clipboard}`,
      },
    ]);
    cleanups.push(() => relay.close());
    const tmp = makeTmpDir();
    cleanups.push(tmp.cleanup);
    const { out, terminal } = deskTerminal();
    const machine = await createMachine({
      relay: relay.url,
      name: `evil${EVIL.title}name`,
      roots: [],
      stateDir: path.join(tmp.dir, 'state'),
      appUrl: 'http://127.0.0.1:4173',
      log: deskLog((line) => terminal.print(line, true), { verbose: true }),
    });
    cleanups.push(() => machine.close());
    cleanups.push(attachDesk(machine, terminal, { verbose: true }));
    await until(() => out.text().includes('!! relay error'), 'the relay error on the desk');
    await until(() => out.text().includes('relay-limit'), 'the relay error in the log');
    expect(out.text()).toContain('!! relay error limit: relay says hello');
    expect(out.text()).not.toMatch(TERMINAL_CONTROL);
  });
});
