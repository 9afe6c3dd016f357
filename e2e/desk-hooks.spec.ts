import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOOK_PROGRAM } from '../machine/hooks/claude-settings.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';

// E10 (desk sessions) on the phone: the real machine process and the real hook program, fed the
// hook events Claude Code sends (their shapes as the installed CLI sends them; the real CLI in a
// pty is machine/hooks/desk-hooks.test.ts). The phone lists the session as started at the desk,
// offers no reply box, and its Allow reaches the waiting hook as Claude Code's decision.

/** Runs the hook program as Claude Code does; resolves with what it printed. */
function hook(socket: string, event: object): Promise<string> {
  const child = spawn(process.execPath, [HOOK_PROGRAM, socket], { stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(JSON.stringify(event));
  return new Promise((r) => child.on('exit', () => r(out)));
}

test.describe('Claude Code sessions started at the desk (E10 hooks)', () => {
  test('E10 hooks: a desk session shows "Started at the desk — reply at the terminal" instead of a reply box; its Bash card allowed on the phone is the hook’s allow', async ({
    page,
    machine,
  }) => {
    const m = await machine('laptop');
    await pairByCode(page, m.pairingCode, 'laptop');
    const socket = join(m.stateDir, 'hooks.sock');
    const transcript = join(m.root, 'session.jsonl');
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'Tidy the notes folder' } })}\n`,
    );
    const base = { session_id: 'desk-e2e-1', transcript_path: transcript, cwd: m.root };
    await hook(socket, {
      ...base,
      hook_event_name: 'UserPromptSubmit',
      prompt: 'Tidy the notes folder',
    });
    const decision = hook(socket, {
      ...base,
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'ls notes', description: 'List the notes' },
    });

    // The list re-renders when the card arrives; tap the row once it has (a tap on a row that
    // moved under the finger landed elsewhere once).
    const row = page.getByRole('link', { name: /Tidy the notes folder/ }).first();
    await expect(row).toContainText('Waiting for approval', { timeout: 15_000 });
    await row.click();
    await expect(page.getByText('Started at the desk — reply at the terminal.')).toBeVisible();
    await expect(page.getByText('Started at the desk', { exact: true })).toBeVisible();
    await expect(page.getByLabel('Reply to this session')).toHaveCount(0);
    await expect(page.getByText('Tidy the notes folder').first()).toBeVisible();
    const allow = page.getByRole('button', { name: 'Allow once: Run ls notes' });
    await expect(allow).toBeEnabled({ timeout: 15_000 });
    await allow.dblclick();
    expect(JSON.parse(await decision)).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } },
    });
  });
});
