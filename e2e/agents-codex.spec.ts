import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODEX_TEST_ARGS, makeCodexHome } from '../machine/test-support/codex-home.ts';
import { startFakeResponses } from '../machine/test-support/fake-responses.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';

// E10 end to end: the real machine process with `--agent codex` runs the real Codex
// (`codex app-server`) against a scripted Responses server on loopback; the phone in Chromium
// dispatches, gets Codex's exec_command card with the command as typed, allows it, and reads
// Codex's final text. Codex never sees a real login (HOME and CODEX_HOME are a temp dir).

/**
 * The machine starts Codex as a user would, with no test flags, so the flags that keep Codex off
 * the internet (`--disable plugins` …) go into its config.toml as `[features]` instead.
 */
function featuresToml(args: readonly string[]): string {
  const lines = ['[features]'];
  for (let i = 0; i + 1 < args.length; i += 2) {
    if (args[i] !== '--disable') throw new Error(`not a --disable flag: ${args[i]}`);
    lines.push(`${args[i + 1]} = false`);
  }
  return `${lines.join('\n')}\n`;
}

test.describe('Codex behind the phone (E10)', () => {
  test('E10: Codex is offered on New session; dispatch → exec_command card with the command as typed → Allow → the file exists → Codex’s final text and the agent line (codex · model) in the session', async ({
    page,
    machine,
  }) => {
    const fake = await startFakeResponses();
    const home = makeCodexHome(fake);
    try {
      appendFileSync(join(home.dir, 'config.toml'), featuresToml(CODEX_TEST_ARGS));
      // First request: a command that must leave the sandbox, so Codex asks (on-request policy);
      // every later one: Codex's closing text.
      let requests = 0;
      fake.respond = () =>
        requests++ === 0
          ? {
              kind: 'call',
              name: 'exec_command',
              args: {
                cmd: 'echo from-codex > codex.txt',
                sandbox_permissions: 'require_escalated',
                justification: 'Write codex.txt as asked',
              },
            }
          : { kind: 'text', text: 'I wrote codex.txt in your folder.' };
      const m = await machine('laptop', {
        args: ['--agent', 'codex', '--agent', 'mock'],
        env: { HOME: home.dir, CODEX_HOME: home.dir, FAKE_API_KEY: 'fake-key' },
      });
      await m.proc.waitForLine(/codex: ready/);
      await pairByCode(page, m.pairingCode, 'laptop');
      await page.getByRole('link', { name: 'Start a session' }).click();
      // Two agents announced: the choice is offered, the machine's default (the first) chosen.
      const agent = page.getByLabel('Agent');
      await expect(agent).toHaveValue('codex');
      await expect(agent.locator('option')).toHaveText(['codex', 'mock']);
      await page.getByLabel('Prompt').fill('please write codex.txt');
      await page.getByRole('button', { name: 'Start session' }).click();
      // Codex reports `/bin/bash -lc 'echo from-codex > codex.txt'`; the card names the command
      // as the owner would have typed it, with the folder it runs in and Codex's reason.
      const allow = page.getByRole('button', {
        name: /^Allow(?: once)?: Run echo from-codex > codex\.txt$/,
      });
      await expect(allow).toBeEnabled({ timeout: 30_000 });
      const card = page.locator('article.approval', { has: allow });
      await expect(card.locator('code.title-command')).toHaveText('echo from-codex > codex.txt');
      await expect(card.locator('pre.detail')).toContainText(`in ${m.root}`);
      await expect(card.locator('pre.detail')).toContainText('Why: Write codex.txt as asked');
      // E3: Codex runs what it asked for, so its command is never offered for editing.
      await expect(card.getByRole('button', { name: /^Edit/ })).toHaveCount(0);
      await allow.dblclick();
      await expect(page.getByText('Turn summary')).toBeVisible({ timeout: 30_000 });
      await expect(page.getByText('I wrote codex.txt in your folder.').first()).toBeVisible();
      expect(readFileSync(join(m.root, 'codex.txt'), 'utf8')).toBe('from-codex\n');
      await expect(page.getByText(/codex · gpt-5\.5/).first()).toBeVisible();
      // The model heard the command's result: Codex ran it once, after the allow.
      expect(requests).toBe(2);
    } finally {
      await fake.close();
      home.cleanup();
    }
  });
});
