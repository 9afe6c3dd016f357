import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeTestEnv, startFakeAnthropic } from '../machine/test-support/fake-anthropic.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';
import { tempDir } from './support/processes.ts';

// E10 end to end: the real machine process with `--agent claude` runs the real Claude Code CLI
// against a scripted Anthropic server; the phone in Chromium dispatches, gets Claude's Bash card,
// allows it, and reads Claude's final text. The CLI never sees a real login (HOME is a temp dir).
test.describe('Claude Code behind the phone (E10)', () => {
  test('E10 + E11: the agent is offered on New session; dispatch → Bash card → Deny with words: Claude hears them as the tool’s error and goes on → the next Bash card → Allow → the file exists → Claude’s final text and the agent line in the session', async ({
    page,
    machine,
  }) => {
    const fake = await startFakeAnthropic();
    const home = tempDir('claude-home');
    try {
      mkdirSync(join(home.path, '.claude'));
      fake.script('E2E-CLAUDE', [
        { tool: 'Bash', input: { command: 'rm -rf build', description: 'Clean the build' } },
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
      // E11: a deny with words; Claude hears them as that tool's error result and goes on.
      const first = page.getByRole('article', { name: 'Run rm -rf build' });
      await expect(first.getByRole('button', { name: 'Deny: Run rm -rf build' })).toBeEnabled({
        timeout: 30_000,
      });
      await first.locator('summary', { hasText: 'Tell the agent why (optional)' }).click();
      await first
        .getByRole('textbox', { name: 'Tell the agent why (optional)' })
        .fill('keep build, the release needs it');
      await first.getByRole('button', { name: 'Deny: Run rm -rf build' }).click();
      await expect(page.getByText('Denied: keep build, the release needs it')).toBeVisible();
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
      const afterDeny = JSON.stringify(fake.requests('E2E-CLAUDE')[1]?.messages.at(-1)?.content);
      expect(afterDeny).toContain('"is_error":true');
      expect(afterDeny).toContain('They said: keep build, the release needs it');
      await expect(page.getByText(/claude · /).first()).toBeVisible();
    } finally {
      await fake.close();
      home.remove();
    }
  });
});
