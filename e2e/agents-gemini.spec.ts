import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { geminiTestEnv, startFakeGemini } from '../machine/test-support/fake-gemini.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';
import { tempDir } from './support/processes.ts';
import { liveProcesses } from '../testkit/process-group.ts';

/** Live processes in `dir` whose command line has `needle` (zombies not: PID 1 here does not reap). */
const running = (dir: string, needle: string) => liveProcesses({ cwd: dir, cmdline: needle });

// E10 end to end over ACP: the real machine process with `--agent gemini` runs the real Gemini
// CLI (`gemini --acp`) against a scripted Gemini API on loopback; the phone in Chromium
// dispatches and answers every card from the app. The CLI never sees a real login (HOME is a
// temp dir).
test.describe('Gemini CLI over ACP behind the phone (E10)', () => {
  test('E10 + E4: gemini is offered on New session; a file write is a diff card → Deny leaves no file and Gemini goes on → command card → Allow → the file exists → final text; a reply runs a long command → two-tap Stop → "Stopped by you" and the command’s process is gone', async ({
    page,
    machine,
  }) => {
    const fake = await startFakeGemini();
    const home = tempDir('gemini-home');
    try {
      const m = await machine('laptop', {
        args: ['--agent', 'gemini', '--agent', 'mock'],
        env: geminiTestEnv(home.path, fake.url),
      });
      fake.script('E2E-GEMINI', [
        {
          call: 'write_file',
          args: { file_path: join(m.root, 'notes.md'), content: 'one\ntwo\n' },
        },
        {
          call: 'run_shell_command',
          args: { command: 'echo from-gemini > gemini.txt', description: 'Write gemini.txt' },
        },
        { text: 'I wrote gemini.txt in your folder.' },
      ]);
      // The longer marker wins for the reply's requests (fake-gemini picks the longest match).
      fake.script('E2E-GEMINI-STOP', [
        {
          call: 'run_shell_command',
          args: { command: 'sleep 31.5 && touch late.txt', description: 'Wait a while' },
        },
        { text: 'Picking up after the stop.' },
      ]);
      await m.proc.waitForLine(/gemini: ready/);
      await pairByCode(page, m.pairingCode, 'laptop');
      await page.getByRole('link', { name: 'Start a session' }).click();
      const agent = page.getByLabel('Agent');
      await expect(agent).toHaveValue('gemini');
      await expect(agent.locator('option')).toHaveText(['gemini', 'mock']);
      await page.getByLabel('Prompt').fill('E2E-GEMINI please write a file');
      await page.getByRole('button', { name: 'Start session' }).click();

      // E10: Gemini's write_file arrives as kind "edit" with a diff; the app renders it as its
      // diff view (added lines visible), and Deny (reject_once) writes nothing.
      const diff = page.getByRole('region', { name: 'Diff with line numbers' });
      await expect(diff).toBeVisible({ timeout: 30_000 });
      await expect(diff.locator('tr.diff-add')).toHaveText([/one/, /two/]);
      await expect(diff).toContainText('notes.md');
      const editCard = page.getByRole('article', { name: 'Writing to notes.md' });
      await expect(editCard.getByRole('region', { name: 'Diff with line numbers' })).toBeVisible();
      const deny = editCard.getByRole('button', { name: 'Deny: Writing to notes.md' });
      await expect(deny).toBeEnabled();
      await expect(editCard.getByRole('button', { name: /^Edit/ })).toHaveCount(0);
      await deny.click();
      // The card leaves; the conversation keeps the decision.
      await expect(
        page.getByRole('status').filter({ hasText: 'Writing to notes.md' }),
      ).toContainText('Denied');

      // Gemini's next step after the refusal: the command card.
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
      expect(existsSync(join(m.root, 'notes.md'))).toBe(false);
      // Gemini heard the refusal as the write's tool result before it asked for the command.
      expect(JSON.stringify(fake.requests('E2E-GEMINI')[1]?.contents?.at(-1))).toContain(
        'functionResponse',
      );
      await expect(page.getByText(/gemini · /).first()).toBeVisible();

      // E4: a reply runs a long command; the app's Stop (first tap arms, second sends) ends the
      // turn "Stopped by you" and the machine ends the command's process.
      await page.getByLabel('Reply to this session').fill('E2E-GEMINI-STOP now wait');
      await page.getByRole('button', { name: 'Send' }).click();
      const allowSleep = page.getByRole('button', {
        name: /^Allow(?: once)?: Run sleep 31\.5 && touch late\.txt$/,
      });
      await expect(allowSleep).toBeEnabled({ timeout: 30_000 });
      await allowSleep.dblclick();
      await expect
        .poll(() => running(m.root, '31.5').length, { timeout: 20_000 })
        .toBeGreaterThan(0);
      const stop = page.getByRole('button', { name: /^Stop: / });
      await stop.click();
      await page.getByRole('button', { name: /^Tap again to stop: / }).click();
      // The command sleeps 31.5 s: a turn that ends well before is the stop's doing (how fast
      // is measured by `npm run bench:agents`, not asserted in a browser on a loaded machine).
      await expect(page.locator('.tl-final').last()).toContainText('Stopped by you', {
        timeout: 15_000,
      });
      // The machine ended what the turn started (Gemini may leave it running on cancel).
      await expect.poll(() => running(m.root, '31.5'), { timeout: 15_000 }).toEqual([]);
      expect(existsSync(join(m.root, 'late.txt'))).toBe(false);
      await expect(page.getByRole('button', { name: /^Stop/ })).toHaveCount(0);
    } finally {
      await fake.close();
      home.remove();
    }
  });
});
