/// <reference lib="dom" />
import type { Page } from '@playwright/test';
import { animationsDone, expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { makeTestMachine, type TestMachine } from './support/test-machine.ts';

// SC5: the inbox lists the sessions of every machine (not only what waits), newest first and
// bounded, each row a whole-row link with its machine, its title on one line, its state as an
// icon and a word, and its time; a stopped turn and an ended session are never shown as failed.
// Against machine ends written in the test, which say exactly what an honest machine would.

const CAPS = { fullAccessDispatch: false, questionForwarding: true, interrupt: true };
const statusOf = (machine: string) => ({
  type: 'machine.status',
  machine,
  pluginVersion: '1.2.0',
  capabilities: CAPS,
});
const NOW = Date.now();
const session = (sessionId: string, title: string, state: string, ageMin: number, over = {}) => ({
  sessionId,
  title,
  cwd: '/work/repo',
  state,
  lastActivity: NOW - ageMin * 60_000,
  dispatched: true,
  live: true,
  ...over,
});
const LONG =
  'Check the build and deploy it to the staging cluster when the tests pass, then post a summary';

/** Both machines paired, and the phone joined to both rooms (each received a fresh sessions.get). */
async function pairBoth(page: Page, machines: TestMachine[]) {
  for (const m of machines) await pairByCode(page, m.code, m === machines[0] ? 'laptop' : 'desk');
  const count = (m: TestMachine) => m.received.filter((r) => r.type === 'sessions.get').length;
  const before = machines.map(count);
  await page.reload();
  await Promise.all(machines.map((m, i) => m.waitFor(() => count(m) > before[i]!)));
}

test('SC5: the inbox lists running and recent sessions of every machine, newest first and bounded; stopped and ended are never failed; every row is one 44 px link', async ({
  page,
  relay,
}) => {
  const laptop = makeTestMachine(relay.url, 'laptop');
  const desk = makeTestMachine(relay.url, 'desk');
  await Promise.all([laptop.connect(), desk.connect()]);
  try {
    await pairBoth(page, [laptop, desk]);
    const older = Array.from({ length: 20 }, (_, i) =>
      session(`old${i}`, `Older task ${i}`, 'done', 120 + i),
    );
    laptop.say(statusOf('laptop'));
    laptop.say({
      type: 'session.snapshot',
      sessions: [
        session('run', LONG, 'running', 1),
        session('stop', 'Rename the config keys', 'idle', 3),
        session('fail', 'Run the flaky tests', 'error', 5),
        ...older,
      ],
    });
    laptop.say({
      type: 'turn.final',
      sessionId: 'stop',
      ok: false,
      reason: 'interrupted',
      summary: 'Turn stopped.',
    });
    desk.say(statusOf('desk'));
    desk.say({
      type: 'session.snapshot',
      sessions: [
        session('gone', 'Update the changelog', 'idle', 2, {
          live: false,
          ended: { reason: 'machine-restarted' },
        }),
      ],
    });
    await nav(page, '#/');
    const rows = page.locator('section[aria-labelledby="inbox-sessions"] a.row');
    await expect(rows).toHaveCount(20);
    // Newest first, across machines: laptop 1 min, desk 2, laptop 3, laptop 5, then the older.
    await expect(rows.nth(0)).toContainText(LONG);
    await expect(rows.nth(0)).toContainText('Running');
    await expect(rows.nth(0)).toContainText('laptop');
    await expect(rows.nth(1)).toContainText('Update the changelog');
    await expect(rows.nth(1)).toContainText('Ended — the machine restarted');
    await expect(rows.nth(1)).toContainText('desk');
    await expect(rows.nth(2)).toContainText('Rename the config keys');
    await expect(rows.nth(2)).toContainText('Stopped by you');
    await expect(rows.nth(3)).toContainText('Error');
    await expect(rows.nth(4)).toContainText('Older task 0');
    // Bounded: 24 sessions, 20 rows, the rest counted.
    await expect(page.locator('section[aria-labelledby="inbox-sessions"] .hint')).toHaveText(
      '4 older on the machine screens.',
    );
    for (const i of [1, 2]) {
      await expect(rows.nth(i)).not.toContainText('Error');
      await expect(rows.nth(i).locator('.chip.state-error')).toHaveCount(0);
    }

    await animationsDone(page);
    const shapes = await rows.evaluateAll((links) =>
      links.slice(0, 4).map((link) => {
        const row = link.getBoundingClientRect();
        const item = link.parentElement!.getBoundingClientRect();
        const title = link.querySelector<HTMLElement>('.row-title')!;
        const chip = link.querySelector('.chip');
        const icon = chip?.querySelector('svg.icon')?.getBoundingClientRect();
        return {
          text: link.textContent,
          height: row.height,
          widthGap: Math.abs(row.width - item.width),
          oneLine:
            title.getClientRects().length === 1 && title.scrollHeight <= title.clientHeight + 1,
          cut: title.scrollWidth > title.clientWidth,
          chipIcon: icon !== undefined && icon.width > 0 && icon.height > 0,
          chipWord: (chip?.textContent ?? '').trim().length > 0,
          time: /\d\d:\d\d/.test(link.textContent ?? ''),
        };
      }),
    );
    for (const s of shapes) {
      expect(s, `row "${s.text}"`).toMatchObject({
        widthGap: 0,
        oneLine: true,
        chipIcon: true,
        chipWord: true,
        time: true,
      });
      expect(s.height, `row "${s.text}"`).toBeGreaterThanOrEqual(44);
    }
    expect(shapes[0]!.cut, 'the long title ends in an ellipsis').toBe(true);
    // The whole title is still the link's text, for screen readers.
    await expect(rows.nth(0)).toHaveAccessibleName(new RegExp(LONG));
    await expectAccessible(page, 'the inbox with sessions');

    await rows.nth(2).click();
    await expect(page).toHaveURL(new RegExp(`#/m/${laptop.roomId}/s/stop$`));
  } finally {
    await Promise.all([laptop.close(), desk.close()]);
  }
});
