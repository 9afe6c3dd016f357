import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { geminiTestEnv, startFakeGemini } from '../machine/test-support/fake-gemini.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';
import { tempDir } from './support/processes.ts';

// E10 end to end over ACP: the real machine process with `--agent gemini` runs the real Gemini
// CLI (`gemini --acp`) against a scripted Gemini API on loopback; the phone in Chromium
// dispatches, gets Gemini's command card, allows it, and reads Gemini's final text. The CLI never
// sees a real login (HOME is a temp dir).
test.describe('Gemini CLI over ACP behind the phone (E10)', () => {
  test('E10: gemini is offered on New session; dispatch → command card → Allow → the file exists → Gemini’s final text in the session', async ({
    page,
    machine,
  }) => {
    const fake = await startFakeGemini();
    const home = tempDir('gemini-home');
    try {
      fake.script('E2E-GEMINI', [
        {
          call: 'run_shell_command',
          args: { command: 'echo from-gemini > gemini.txt', description: 'Write gemini.txt' },
        },
        { text: 'I wrote gemini.txt in your folder.' },
      ]);
      const m = await machine('laptop', {
        args: ['--agent', 'gemini', '--agent', 'mock'],
        env: geminiTestEnv(home.path, fake.url),
      });
      await m.proc.waitForLine(/gemini: ready/);
      await pairByCode(page, m.pairingCode, 'laptop');
      await page.getByRole('link', { name: 'Start a session' }).click();
      const agent = page.getByLabel('Agent');
      await expect(agent).toHaveValue('gemini');
      await expect(agent.locator('option')).toHaveText(['gemini', 'mock']);
      await page.getByLabel('Prompt').fill('E2E-GEMINI please write a file');
      await page.getByRole('button', { name: 'Start session' }).click();
      const allow = page.getByRole('button', {
        name: /^Allow(?: once)?: Run echo from-gemini > gemini\.txt$/,
      });
      await expect(allow).toBeEnabled({ timeout: 30_000 });
      // E3: ACP's answer carries no changed command, so none is offered for editing.
      const card = page.locator('article.approval', { has: allow });
      await expect(card.getByRole('button', { name: /^Edit/ })).toHaveCount(0);
      await allow.dblclick();
      await expect(page.getByText('Turn summary')).toBeVisible({ timeout: 30_000 });
      await expect(page.getByText('I wrote gemini.txt in your folder.').first()).toBeVisible();
      expect(readFileSync(join(m.root, 'gemini.txt'), 'utf8')).toBe('from-gemini\n');
      await expect(page.getByText(/gemini · /).first()).toBeVisible();
    } finally {
      await fake.close();
      home.remove();
    }
  });
});
