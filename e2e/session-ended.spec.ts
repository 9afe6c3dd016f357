import { expect, expectAccessible, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import { startSession } from './support/phone.ts';

// E11.6 in the app against the real mock machine (no scripted snapshot): the machine process is
// restarted with its state dir, and the sessions it cannot resume come back with
// `ended: machine-restarted`, which the app renders — on the session screen, and in the inbox
// as "Ended", never as an error or under a failed heading.

test('E11.6/E11.7: after a real machine restart, a finished session and one cut short say "Ended — the machine restarted" (the cut turn "Stopped — the machine shut down", not an error), offer no reply box, continue in a new session with the unsent draft; the inbox never calls them failed', async ({
  page,
  machine,
}) => {
  const m = await machine('demo');
  await startSession(page, m, 'say: first look\nsay: all done');
  await expect(page.getByText('all done').first()).toBeVisible({ timeout: 20_000 });
  const finished = new URL(page.url()).hash;
  // A second session is cut short by the restart while its approval waits.
  await nav(page, '#/new');
  await page.getByLabel('Prompt').fill('run: touch never.txt');
  await page.getByRole('button', { name: 'Start session' }).click();
  await expect(page.getByRole('button', { name: ALLOW_RUN })).toBeEnabled({ timeout: 20_000 });
  const cutShort = new URL(page.url()).hash;

  await nav(page, finished);
  const reply = page.getByRole('textbox', { name: 'Reply to this session' });
  await reply.fill('and then the changelog');
  await m.restart();

  const ended = page.getByRole('heading', { name: 'Ended — the machine restarted' });
  await expect(ended).toBeVisible({ timeout: 20_000 });
  await expect(reply).toHaveCount(0);
  await expectAccessible(page, 'an ended session');

  // E11.7: the turn the machine's stop cut short says so — not "Turn ended with an error".
  await nav(page, cutShort);
  await expect(page.getByRole('heading', { name: 'Ended — the machine restarted' })).toBeVisible();
  await expect(page.locator('.tl-final').last()).toContainText('Stopped — the machine shut down');
  await expect(page.getByText('Turn ended with an error')).toHaveCount(0);

  // The inbox: both rows say Ended, neither says Error, and there is no Failed section.
  await nav(page, '#/');
  const rows = page.getByRole('region', { name: 'Sessions' }).getByRole('link');
  await expect(rows.filter({ hasText: 'first look' })).toContainText(
    'Ended — the machine restarted',
  );
  await expect(rows.filter({ hasText: 'touch never.txt' })).toContainText(
    'Ended — the machine restarted',
  );
  await expect(rows.filter({ hasText: 'Error' })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: /Failed/ })).toHaveCount(0);

  // Continue in a new session carries the first prompt and the reply that was never sent.
  await nav(page, finished);
  await page.getByRole('link', { name: 'Continue in a new session' }).click();
  await expect(page.getByLabel('Prompt')).toHaveValue(
    'say: first look\nsay: all done\n\nand then the changelog',
  );
  await page.getByRole('button', { name: 'Start session' }).click();
  await expect(page.getByText('and then the changelog').first()).toBeVisible({ timeout: 20_000 });
  // The new session is live: it has a reply box and no ended banner.
  await expect(page.getByRole('textbox', { name: 'Reply to this session' })).toBeVisible();
  await expect(page.getByRole('heading', { name: /^Ended/ })).toHaveCount(0);
});
