import type { Page } from '@playwright/test';
import { expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { makeTestMachine, type TestMachine } from './support/test-machine.ts';

const session = (id: string, title: string, extra: Record<string, unknown> = {}) => ({
  sessionId: id,
  title,
  cwd: '/work/repo',
  state: 'awaiting_approval',
  lastActivity: Date.now(),
  dispatched: false,
  live: true,
  ...extra,
});
const approval = (id: string, title: string, detail = 'npm test') => ({
  type: 'approval.request',
  approvalId: id,
  sessionId: 's1',
  title,
  detail,
  createdAt: Date.now(),
});

/**
 * Everything the phone sent before this point has reached the machine: a reload opens a fresh
 * socket whose first action is a sessions.get, and the relay forwards in order.
 */
async function barrier(page: Page, machine: TestMachine) {
  const count = () => machine.received.filter((m) => m.type === 'sessions.get').length;
  const before = count();
  await page.reload();
  await machine.waitFor(() => count() > before);
}

/** In-app navigation (no reload), like tapping a link. */
async function nav(page: Page, hash: string) {
  await page.evaluate((h) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = h;
  }, hash);
}

test.describe('Approvals (D10: never lost, never doubled, never offline)', () => {
  test('Allow on a double tap sends exactly one decision, which names what it approves', async ({
    page,
    relay,
  }) => {
    const machine = makeTestMachine(relay.url, 'laptop');
    await machine.connect();
    await pairByCode(page, machine.code, 'laptop');
    machine.say({ type: 'session.snapshot', sessions: [session('s1', 'Fix the build')] });
    machine.say(approval('a1', 'Run npm test'));
    await nav(page, '#/');
    const allow = page.getByRole('button', { name: 'Allow once: Run npm test' });
    await expect(allow).toBeEnabled();
    await expectAccessible(page, 'inbox with an approval');
    await allow.dblclick();
    await expect(page.getByText('You chose: Allow')).toBeVisible();
    await expect(page.getByText('Sent')).toBeVisible();
    const decision = await machine.waitFor((m) => m.type === 'approval.respond');
    expect(decision).toMatchObject({ approvalId: 'a1', decision: 'allow' });
    machine.say({ type: 'approval.closed', approvalId: 'a1', resolution: 'allow' });
    await expect(page.getByText('Nothing is waiting for you.')).toBeVisible();
    await barrier(page, machine);
    expect(machine.received.filter((m) => m.type === 'approval.respond')).toHaveLength(1);
    await machine.close();
  });

  test('Deny sends deny once; a diff detail shows line numbers and a truncated badge', async ({
    page,
    relay,
  }) => {
    const machine = makeTestMachine(relay.url, 'laptop');
    await machine.connect();
    await pairByCode(page, machine.code, 'laptop');
    machine.say({ type: 'session.snapshot', sessions: [session('s1', 'Refactor')] });
    const diff =
      '--- a/x.ts\n+++ b/x.ts\n@@ -10,2 +10,2 @@\n const a = 1;\n-const b = 2;\n+const b = 3;\n…[truncated]';
    machine.say(approval('a2', 'Edit x.ts', diff));
    await nav(page, `#/m/${machine.roomId}/s/s1/approval/a2`);
    await expect(page.getByRole('region', { name: 'Diff with line numbers' })).toBeVisible();
    await expect(page.getByRole('row', { name: /11\s+-const b = 2;/ })).toBeVisible();
    await expect(page.getByText('Truncated', { exact: true })).toBeVisible();
    await expectAccessible(page, 'session with a diff approval');
    await page.getByRole('button', { name: 'Deny: Edit x.ts' }).click();
    await expect(page.getByText('You chose: Deny')).toBeVisible();
    const decision = await machine.waitFor((m) => m.type === 'approval.respond');
    expect(decision).toMatchObject({ approvalId: 'a2', decision: 'deny' });
    machine.say({ type: 'approval.closed', approvalId: 'a2', resolution: 'deny' });
    // SC1: the outcome takes the card's place in the timeline, in the owner's words.
    await expect(page.locator('.tl-outcome[data-card="a2"]')).toContainText('Denied');
    await barrier(page, machine);
    expect(machine.received.filter((m) => m.type === 'approval.respond')).toHaveLength(1);
    await machine.close();
  });

  test('with the machine offline, Allow and Deny are disabled with the reason', async ({
    page,
    relay,
  }) => {
    const machine = makeTestMachine(relay.url, 'laptop');
    await machine.connect();
    await pairByCode(page, machine.code, 'laptop');
    machine.say({ type: 'session.snapshot', sessions: [session('s1', 'Fix')] });
    machine.say(approval('a3', 'Run rm', 'rm'));
    await nav(page, '#/');
    await expect(page.getByRole('button', { name: 'Allow once: Run rm' })).toBeEnabled();
    await machine.close();
    await expect(page.getByRole('button', { name: 'Allow once: Run rm' })).toBeDisabled();
    await expect(page.getByRole('button', { name: 'Deny: Run rm' })).toBeDisabled();
    await expect(page.getByText('The machine is offline — actions are disabled.')).toBeVisible();
    await expect(page.getByText(/laptop offline since \d\d:\d\d/).first()).toBeVisible();
  });

  test('an approval closed on the computer leaves the card with a note', async ({
    page,
    relay,
  }) => {
    const machine = makeTestMachine(relay.url, 'laptop');
    await machine.connect();
    await pairByCode(page, machine.code, 'laptop');
    machine.say({ type: 'session.snapshot', sessions: [session('s1', 'Fix')] });
    machine.say(approval('a4', 'Run lint', 'lint'));
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    await expect(page.getByRole('button', { name: 'Allow once: Run lint' })).toBeVisible();
    machine.say({ type: 'approval.closed', approvalId: 'a4', resolution: 'local' });
    await expect(page.getByText('Approval “Run lint”: answered on the computer.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Allow once: Run lint' })).toHaveCount(0);
    await machine.close();
  });

  test('the app badge counts what waits on every screen and clears when nothing does', async ({
    page,
    relay,
  }) => {
    // Chromium refuses the Badging API outside an installed app, so the calls are recorded.
    await page.addInitScript(() => {
      const w = globalThis as unknown as { navigator: Record<string, unknown>; __badge: string[] };
      w.__badge = [];
      w.navigator.setAppBadge = (n: number) => (w.__badge.push(`set ${n}`), Promise.resolve());
      w.navigator.clearAppBadge = () => (w.__badge.push('clear'), Promise.resolve());
    });
    const badge = () =>
      page.evaluate(() => (globalThis as unknown as { __badge: string[] }).__badge.at(-1));
    const machine = makeTestMachine(relay.url, 'laptop');
    await machine.connect();
    await pairByCode(page, machine.code, 'laptop');
    await nav(page, '#/settings');
    machine.say({ type: 'session.snapshot', sessions: [session('s1', 'Fix')] });
    machine.say(approval('a5', 'Run lint'));
    machine.say({
      type: 'question.request',
      questionId: 'q1',
      sessionId: 's1',
      items: [
        {
          id: 'i1',
          prompt: 'Which branch?',
          options: [{ id: 'main', label: 'main' }],
          multiSelect: false,
          allowFreeText: false,
        },
      ],
      createdAt: Date.now(),
    });
    await expect.poll(badge).toBe('set 2');
    machine.say({ type: 'approval.closed', approvalId: 'a5', resolution: 'local' });
    await expect.poll(badge).toBe('set 1');
    machine.say({ type: 'question.closed', questionId: 'q1', resolution: 'local' });
    await expect.poll(badge).toBe('clear');
    await machine.close();
  });
});
