import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { resolveClaude } from '../machine/agent/claude/binary.ts';
import { prepareClaudeConfig, startClaudePty } from '../machine/test-support/claude-pty.ts';
import { claudeTestEnv, startFakeAnthropic } from '../machine/test-support/fake-anthropic.ts';
import { REPO } from '../testkit/bundles.ts';
import { expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { tempDir } from './support/processes.ts';

// E10 (desk sessions) on the phone, end to end: the REAL interactive `claude` in a pty (tmux),
// its HOME and CLAUDE_CONFIG_DIR isolated, our hooks installed by `hooks install --yes` as the
// owner runs it (the machine's own CLI under tsx, as `npm run machine` does), the fake Anthropic
// server scripting its Bash calls, the real machine process and relay, the app in Chromium.

const run = promisify(execFile);
const WAIT_MS = 20_000;

test.describe('Claude Code sessions started at the desk (E10 hooks)', () => {
  test('E10 hooks: a claude started in a terminal is in the inbox as "Started at the desk" with its title and folder; its Bash card allowed in the app runs the command and the terminal’s dialog goes away; a request answered at the terminal closes the app’s card; its screen shows its folder and transcript, with no reply box and no Stop', async ({
    page,
    machine,
  }) => {
    const claude = resolveClaude(undefined, '');
    if (!claude.ok) throw new Error(claude.message);
    const fake = await startFakeAnthropic();
    const home = tempDir('claude-desk');
    let pty: ReturnType<typeof startClaudePty> | undefined;
    try {
      const m = await machine('laptop');
      const cwd = join(realpathSync(m.root), 'desk-project');
      mkdirSync(cwd);
      const isolated = claudeTestEnv(home.path, fake.url);
      const env = { PATH: process.env.PATH ?? '', ...isolated };
      prepareClaudeConfig(isolated.CLAUDE_CONFIG_DIR!, cwd, isolated.ANTHROPIC_API_KEY!);
      const install = await run(
        process.execPath,
        [
          '--import',
          'tsx',
          'machine/main.ts',
          'hooks',
          'install',
          '--yes',
          '--state-dir',
          m.stateDir,
        ],
        { cwd: REPO, env: { ...process.env, ...isolated }, timeout: WAIT_MS },
      );
      expect(install.stdout).toContain('hooks: installed.');
      fake.script('DESK-E2E', [
        { tool: 'Bash', input: { command: 'touch from-app.txt', description: 'Make it' } },
        { text: 'made from the app' },
        { tool: 'Bash', input: { command: 'touch at-desk.txt', description: 'Make another' } },
        { text: 'made at the desk' },
      ]);
      // `default`: Claude asks for each tool (its own default is `auto`, where it decides).
      pty = startClaudePty({
        claude: claude.path,
        cwd,
        env,
        args: ['--permission-mode', 'default'],
      });
      // The app pairs while Claude starts.
      await Promise.all([
        pairByCode(page, m.pairingCode, 'laptop'),
        pty.waitForScreen(/❯/, 'the prompt of claude', WAIT_MS),
      ]);
      await pty.submit('DESK-E2E tidy the folder');

      // The inbox: the session, said to be started at the desk, with its title and folder; its
      // Bash request as an ordinary card.
      await nav(page, '#/');
      // The row, not the card's "Session: …" link beside it once the card is in.
      const row = page.getByRole('link', { name: /^DESK-E2E tidy the folder/ });
      await expect(row).toContainText('Started at the desk', { timeout: WAIT_MS });
      await expect(row).toContainText(`Folder: ${cwd}`);
      const allow = page.getByRole('button', { name: 'Allow once: Run touch from-app.txt' });
      await expect(allow).toBeEnabled({ timeout: WAIT_MS });
      await pty.waitForScreen(/Do you want to proceed\?/, "Claude's own dialog", WAIT_MS);
      await expectAccessible(page, 'inbox with a desk session and its card');

      // Allow from the app: the hook's allow runs the command; the terminal's dialog is gone.
      await allow.click();
      const after = await pty.waitForScreen(/made from the app/, 'the first answer', WAIT_MS);
      expect(after).not.toMatch(/Do you want to proceed\?/);
      expect(existsSync(join(cwd, 'from-app.txt'))).toBe(true);

      // The second request is answered at the terminal: the app's card closes, it ran.
      await pty.submit('and another');
      const second = page.getByRole('button', { name: 'Allow once: Run touch at-desk.txt' });
      await expect(second).toBeEnabled({ timeout: WAIT_MS });
      await pty.answerDialog('1');
      await expect(second).toHaveCount(0, { timeout: WAIT_MS });
      await pty.waitForScreen(/made at the desk/, 'the second answer', WAIT_MS);
      expect(existsSync(join(cwd, 'at-desk.txt'))).toBe(true);

      // The session's own screen: its folder, its transcript from Claude's own file, the card
      // answered at the terminal said so; no reply box (where to reply instead) and no Stop.
      // Tap the row once the list has settled (the turn is over): a tap on a row that moved under
      // the finger as the list re-rendered landed elsewhere once.
      await expect(row).toContainText('Done', { timeout: WAIT_MS });
      await row.click();
      await expect(page.getByText('Started at the desk — reply at the terminal.')).toBeVisible();
      await expect(page.getByLabel('Reply to this session')).toHaveCount(0);
      await expect(page.getByRole('button', { name: /^Stop/ })).toHaveCount(0);
      await expect(page.locator('.cwd code')).toHaveText([cwd, 'claude']);
      await expect(page.getByText('Bash: touch from-app.txt').first()).toBeVisible();
      await expect(page.getByText('made at the desk').first()).toBeVisible({ timeout: WAIT_MS });
      await expect(page.getByText(/answered on the computer/).first()).toBeVisible();

      // The machine's list: the same chip, never "Started from phone".
      await page.locator('a.machine-link').click();
      const listed = page.getByRole('link', { name: /^DESK-E2E tidy the folder/ });
      await expect(listed).toContainText('Started at the desk');
      await expect(listed).not.toContainText('Started from phone');
    } finally {
      await pty?.stop();
      await fake.close();
      home.remove();
    }
  });
});
