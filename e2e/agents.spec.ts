import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeTestEnv, startFakeAnthropic } from '../machine/test-support/fake-anthropic.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';
import { tempDir } from './support/processes.ts';

// E10 end to end: the real machine process with `--agent claude` runs the real Claude Code CLI
// against a scripted Anthropic server; the phone in Chromium dispatches, gets Claude's Bash card,
// allows it, and reads Claude's final text. The CLI never sees a real login (HOME is a temp dir).
test.describe('Claude Code behind the phone (E10)', () => {
  test('E10: the agent is offered on New session; dispatch → Bash card with the command → Allow → the file exists → Claude’s final text and the agent line in the session', async ({
    page,
    machine,
  }) => {
    const fake = await startFakeAnthropic();
    const home = tempDir('claude-home');
    try {
      mkdirSync(join(home.path, '.claude'));
      fake.script('E2E-CLAUDE', [
        {
          tool: 'Bash',
          input: { command: 'echo from-claude > claude.txt', description: 'Write claude.txt' },
        },
        { text: 'I wrote claude.txt in your folder.' },
      ]);
      const m = await machine('laptop', {
        args: ['--agent', 'claude', '--agent', 'mock'],
        env: claudeTestEnv(home.path, fake.url),
      });
      await m.proc.waitForLine(/claude: ready/);
      await pairByCode(page, m.pairingCode, 'laptop');
      await page.getByRole('link', { name: 'Start a session' }).click();
      // Two agents announced: the choice is offered, the machine's default (the first) chosen.
      const agent = page.getByLabel('Agent');
      await expect(agent).toHaveValue('claude');
      await expect(agent.locator('option')).toHaveText(['claude', 'mock']);
      await page.getByLabel('Prompt').fill('E2E-CLAUDE please write a file');
      await page.getByRole('button', { name: 'Start session' }).click();
      // SC2: the card's title is the command itself; Claude's description stays in its detail.
      const allow = page.getByRole('button', {
        name: 'Allow once: Run echo from-claude > claude.txt',
      });
      await expect(allow).toBeEnabled({ timeout: 30_000 });
      await expect(
        page.getByRole('article', { name: 'Run echo from-claude > claude.txt' }),
      ).toContainText('Write claude.txt');
      await allow.dblclick();
      await expect(page.getByText('Turn summary')).toBeVisible({ timeout: 30_000 });
      await expect(page.getByText('I wrote claude.txt in your folder.').first()).toBeVisible();
      expect(readFileSync(join(m.root, 'claude.txt'), 'utf8')).toBe('from-claude\n');
      await expect(page.getByText(/claude · /).first()).toBeVisible();
    } finally {
      await fake.close();
      home.remove();
    }
  });
});
