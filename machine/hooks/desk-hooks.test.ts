import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../../protocol/index.ts';
import { makeTmpDir, type TmpDir } from '../../testkit/tmp.ts';
import { resolveClaude } from '../agent/claude/binary.ts';
import { prepareClaudeConfig, startClaudePty } from '../test-support/claude-pty.ts';
import {
  claudeTestEnv,
  startFakeAnthropic,
  type FakeAnthropic,
} from '../test-support/fake-anthropic.ts';
import { is, relaySuite, rid } from '../test-support/relay-suite.ts';
import type { TestPhone } from '../test-support/test-phone.ts';
import { applySettings, hookCommand, planSettings, settingsFile } from './claude-settings.ts';

// E10 (desk sessions) with the REAL interactive `claude` in a pty (tmux), our hooks installed by
// the install code into an isolated config folder, against the fake Anthropic server, and the
// machine behind a real relay with the test phone.

const suite = relaySuite();
let fake: FakeAnthropic;
let home: TmpDir;
const claude = resolveClaude(undefined, '');

beforeAll(async () => {
  fake = await startFakeAnthropic();
  home = makeTmpDir('claude-desk-');
});
afterAll(async () => {
  await fake.close();
  home.cleanup();
});

/** A config folder with our hooks installed (pointing at `socket`) and first-start answers. */
function deskClaude(name: string, cwd: string, socket: string) {
  const homeDir = path.join(home.dir, name);
  const isolated = claudeTestEnv(homeDir, fake.url);
  const env = { PATH: process.env.PATH ?? '', ...isolated };
  prepareClaudeConfig(isolated.CLAUDE_CONFIG_DIR!, cwd, isolated.ANTHROPIC_API_KEY!);
  applySettings(planSettings(settingsFile(env), hookCommand(socket)));
  if (!claude.ok) throw new Error(claude.message);
  // `default`: Claude asks for each tool (its own default is now `auto`, where it decides).
  return startClaudePty({ claude: claude.path, cwd, env, args: ['--permission-mode', 'default'] });
}

const approvalAfter = (phone: TestPhone, from: number) =>
  phone.waitFor(is('approval.request'), 30_000, from);

const respond = (
  phone: TestPhone,
  approvalId: string,
  decision: 'allow' | 'deny',
  more: { edited?: string; message?: string; scope?: 'session' } = {},
) => phone.send({ type: 'approval.respond', requestId: rid(), approvalId, decision, ...more });

const lastToolResult = (marker: string): string =>
  JSON.stringify(fake.requests(marker).at(-1)?.messages.at(-1)?.content ?? '');

const sessionUpdate = (phone: TestPhone, pred: (s: MachineMessage) => boolean, from = 0) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'session.update' }> =>
      m.type === 'session.update' && pred(m),
    30_000,
    from,
  );

describe('E10: Claude Code sessions started at the desk, through its hooks', () => {
  it('E10 hooks: a desk session appears (dispatched:false, live:false, titled by its first prompt, transcript from its own file); a Bash request allowed from the phone runs, one denied does not (Claude hears the E11 message), an edited one runs as edited (E3), a remembered one is allowed by the rule without a card (E2), and one answered at the terminal closes the phone card', async () => {
    const w = await suite.world();
    const phone = await w.phone();
    await phone.waitFor(is('machine.status'));
    const cwd = path.join(w.root, 'desk');
    mkdirSync(cwd);
    fake.script('MARK-DESK', [
      { tool: 'Bash', input: { command: 'touch one.txt', description: 'Make one' } },
      { text: 'first done' },
      { tool: 'Bash', input: { command: 'echo two > two.txt', description: 'Make two' } },
      { text: 'second done' },
      { tool: 'Bash', input: { command: 'echo three > three.txt', description: 'Make three' } },
      { text: 'third done' },
      { tool: 'Bash', input: { command: 'touch one.txt', description: 'Make one again' } },
      { text: 'fourth done' },
      { tool: 'Bash', input: { command: 'echo four > four.txt', description: 'Make four' } },
      { text: 'fifth done' },
    ]);
    const pty = deskClaude('desk', cwd, w.machine.hookSocket!);
    try {
      await pty.waitForScreen(/❯/, 'the prompt of claude');

      // Allow from the phone; the session as the phone sees it.
      let from = phone.messages.length;
      await pty.submit('MARK-DESK make the files');
      const one = await approvalAfter(phone, from);
      expect(one).toMatchObject({ tool: 'Bash', title: 'Run: Make one' });
      expect(one.detail).toContain('touch one.txt');
      const session = w.machine.sessions().find((s) => s.sessionId === one.sessionId)!;
      expect(session).toMatchObject({
        dispatched: false,
        live: false,
        agent: 'claude',
        cwd,
        title: 'MARK-DESK make the files',
        state: 'awaiting_approval',
      });
      respond(phone, one.approvalId, 'allow', { scope: 'session' });
      await sessionUpdate(
        phone,
        (m) =>
          m.type === 'session.update' &&
          m.session.sessionId === one.sessionId &&
          m.session.state === 'done',
        from,
      );
      expect(existsSync(path.join(cwd, 'one.txt'))).toBe(true);
      // Claude may write its last reply to the file after the Stop event: the machine watches
      // the file, so it arrives with no further event (it was missing once in CI before it did).
      const said = () => w.machine.transcript(one.sessionId).map((e) => `${e.role}: ${e.text}`);
      await expect
        .poll(said, { timeout: 10_000 })
        .toEqual(
          expect.arrayContaining([
            'user: MARK-DESK make the files',
            'assistant: Bash: touch one.txt',
            'assistant: first done',
          ]),
        );

      // Deny with a message (E11): nothing runs, Claude hears it.
      from = phone.messages.length;
      await pty.submit('now two');
      const two = await approvalAfter(phone, from);
      respond(phone, two.approvalId, 'deny', { message: 'not two' });
      await pty.waitForScreen(/second done/, 'the second answer');
      expect(existsSync(path.join(cwd, 'two.txt'))).toBe(false);
      expect(lastToolResult('MARK-DESK')).toContain('They said: not two');

      // Allow with changes (E3): the edited command runs instead.
      from = phone.messages.length;
      await pty.submit('now three');
      const three = await approvalAfter(phone, from);
      expect(three.editable?.value).toBe('echo three > three.txt');
      respond(phone, three.approvalId, 'allow', { edited: 'echo edited > three.txt' });
      await pty.waitForScreen(/third done/, 'the third answer');
      expect(readFileSync(path.join(cwd, 'three.txt'), 'utf8')).toBe('edited\n');

      // E2: the rule made with the first allow answers the same request without a card.
      from = phone.messages.length;
      await pty.submit('one again');
      await pty.waitForScreen(/fourth done/, 'the fourth answer');
      expect(phone.messages.slice(from).some((m) => m.type === 'approval.request')).toBe(false);
      expect(w.machine.transcript(one.sessionId).map((e) => e.text)).toContain(
        'Allowed by rule run: touch one.txt.',
      );

      // The terminal answers first: the phone's card closes (local), the command runs.
      from = phone.messages.length;
      await pty.submit('now four');
      const four = await approvalAfter(phone, from);
      await pty.answerDialog('1');
      const closed = await phone.waitFor(
        (m): m is Extract<MachineMessage, { type: 'approval.closed' }> =>
          m.type === 'approval.closed' && m.approvalId === four.approvalId,
        30_000,
        from,
      );
      expect(closed.resolution).toBe('local');
      await pty.waitForScreen(/fifth done/, 'the fifth answer');
      expect(readFileSync(path.join(cwd, 'four.txt'), 'utf8')).toBe('four\n');
    } finally {
      await pty.stop();
    }
  }, 120_000);

  it('E10 hooks: with no machine running, claude with our hooks installed behaves as without them (its own dialog decides)', async () => {
    const dir = makeTmpDir('claude-nomachine-');
    try {
      const cwd = path.join(dir.dir, 'work');
      mkdirSync(cwd);
      fake.script('MARK-NOMACHINE', [
        { tool: 'Bash', input: { command: 'echo alone > alone.txt', description: 'Alone' } },
        { text: 'alone done' },
      ]);
      const pty = deskClaude('nomachine', cwd, path.join(dir.dir, 'state', 'hooks.sock'));
      try {
        await pty.waitForScreen(/❯/, 'the prompt of claude');
        await pty.submit('MARK-NOMACHINE write it');
        await pty.answerDialog('1');
        await pty.waitForScreen(/alone done/, 'the answer');
        expect(readFileSync(path.join(cwd, 'alone.txt'), 'utf8')).toBe('alone\n');
      } finally {
        await pty.stop();
      }
    } finally {
      dir.cleanup();
    }
  }, 60_000);
});
