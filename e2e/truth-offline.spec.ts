import type { Page } from '@playwright/test';
import { expect, expectAccessible, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import { pairedTestMachine, startSession } from './support/phone.ts';

// U4.offline: the phone without a network, a relay that is down and a machine that is away are
// three different sentences, each with "Reconnect now"; and D10 holds across a relay restart in
// the middle of a decision. The tests wait for what the owner sees, never for time.

const session = {
  sessionId: 's1',
  title: 'Fix the build',
  cwd: '/work/repo',
  state: 'awaiting_approval',
  lastActivity: Date.now(),
  dispatched: false,
  live: true,
};
const approval = {
  type: 'approval.request',
  approvalId: 'a1',
  sessionId: 's1',
  title: 'Run npm test',
  detail: 'npm test',
  createdAt: Date.now(),
};

/**
 * Taps "Reconnect now" if the app still offers it: the phone's own retry may get there first
 * (then there is nothing to tap). What the test asserts comes after, from what the owner sees.
 */
async function reconnectIfOffered(page: Page) {
  await page
    .getByRole('button', { name: 'Reconnect now' })
    .click({ timeout: 2_000 })
    .catch(() => undefined);
}

test.describe('U4.offline: offline truth', () => {
  test('U4.offline: Chromium’s offline mode — "You are offline" and Allow disabled within 5 s; back within 5 s of going online', async ({
    page,
    context,
    relay,
  }) => {
    const machine = await pairedTestMachine(page, relay.url);
    machine.say({ type: 'session.snapshot', sessions: [session] });
    machine.say(approval);
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const allow = page.getByRole('button', { name: 'Allow once: Run npm test' });
    await expect(allow).toBeEnabled();
    await context.setOffline(true);
    await expect(page.getByText(/You are offline: this phone has no network/)).toBeVisible({
      timeout: 5_000,
    });
    await expect(allow).toBeDisabled({ timeout: 5_000 });
    // The reason beside the buttons (each disabled action has its own, U4.offline).
    await expect(allow).toHaveAccessibleDescription(
      'You are offline — actions are disabled until this phone is back online.',
    );
    await expect(page.getByText(/Can’t reach the relay/)).toHaveCount(0);
    await expectAccessible(page, 'session while the phone is offline');
    await context.setOffline(false);
    await expect(allow).toBeEnabled({ timeout: 5_000 });
    await expect(page.getByText(/You are offline/)).toHaveCount(0);
    await machine.close();
  });

  test('U4.offline: a stopped relay reads "Can’t reach the relay", unlike a machine that is away; "Reconnect now" is back at once', async ({
    page,
    relay,
  }) => {
    const machine = await pairedTestMachine(page, relay.url);
    machine.say({ type: 'session.snapshot', sessions: [session] });
    machine.say(approval);
    await nav(page, `#/m/${machine.roomId}/s/s1`);
    const allow = page.getByRole('button', { name: 'Allow once: Run npm test' });
    await expect(allow).toBeEnabled();
    await relay.down();
    await expect(
      page.getByText(/Can’t reach the relay since \d\d:\d\d\. This phone is online/),
    ).toBeVisible();
    await expect(allow).toBeDisabled();
    await expect(page.getByText(/You are offline/)).toHaveCount(0);
    // "Reconnect now" tries at once, whatever the backoff says (a new socket right away).
    let sockets = 0;
    page.on('websocket', () => (sockets += 1));
    await page.getByRole('button', { name: 'Reconnect now' }).click();
    await expect.poll(() => sockets).toBeGreaterThan(0);
    await expect(page.getByText(/Can’t reach the relay since/).first()).toBeVisible();
    await relay.up();
    await machine.connect();
    await reconnectIfOffered(page);
    await expect(allow).toBeEnabled({ timeout: 35_000 });
    await expect(page.getByText(/Can’t reach the relay/)).toHaveCount(0);
    // The machine away is a third, different sentence.
    await machine.close();
    await expect(
      page.getByText(/demo offline since \d\d:\d\d\. Its requests will show here/),
    ).toBeVisible();
    await expect(allow).toBeDisabled();
  });

  test('D10 + E1: relay restart mid-decision — the Allow is re-sent once the machine says the card is still open, and applied exactly once', async ({
    page,
    relay,
    machine,
  }) => {
    const m = await machine('demo');
    await startSession(page, m, 'run: echo once >> ran.txt\nsay: done');
    const allow = page.getByRole('button', { name: ALLOW_RUN });
    await expect(allow).toBeEnabled();
    // The relay stops reading (frozen) just as the owner taps Allow, then crashes and restarts.
    relay.proc.freeze();
    await allow.click();
    await expect(page.getByText('You chose: Allow')).toBeVisible();
    await relay.restart({ crash: true });
    // The link is down: the kept decision says it goes again once the link is back.
    await expect(
      page.getByText('Not confirmed yet — sent again once the link is back'),
    ).toBeVisible();
    await reconnectIfOffered(page);
    await expect(page.getByText('Turn summary')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText('Done', { exact: true })).toBeVisible();
    expect(m.deskLines(/approval \S+ closed: allow/)).toHaveLength(1);
    await expect(page.getByText(/Unconfirmed|Not confirmed/)).toHaveCount(0);
  });
});

test('U4.offline: offline says one thing per button — every disabled action has its reason beside it, nothing new is queued, and a decision already sent says it goes again once the link is back', async ({
  page,
  context,
  relay,
  machine,
}) => {
  const m = await machine('demo');
  await startSession(page, m, 'run: echo once >> ran.txt\nsay: done');
  const allow = page.getByRole('button', { name: ALLOW_RUN });
  await expect(allow).toBeEnabled();
  await page.getByRole('textbox', { name: 'Reply to this session' }).fill('and then?');
  await context.setOffline(true);
  const why = 'You are offline — actions are disabled until this phone is back online.';
  const send = page.getByRole('button', { name: 'Send' });
  const stop = page.getByRole('button', { name: /^Stop: / });
  for (const button of [allow, page.getByRole('button', { name: /^Deny: / }), stop, send]) {
    await expect(button).toBeDisabled();
    // The reason is the button's own description (aria-describedby), on screen beside it.
    await expect(button).toHaveAccessibleDescription(new RegExp(why.replace(/[.?]/g, '\\$&')));
  }
  await expect(page.getByText(/only what you had already sent is sent again then/)).toBeVisible();
  await expect(page.getByText(/actions wait|nothing is queued/)).toHaveCount(0);
  await expectAccessible(page, 'session offline, every action with its reason');

  // Back online; the relay stops reading as Allow is tapped, then the phone goes offline: the
  // decision is kept, and the card says it goes again once the link is back — and it does, once.
  await context.setOffline(false);
  await expect(allow).toBeEnabled({ timeout: 10_000 });
  relay.proc.freeze();
  await allow.click();
  await expect(page.getByText('You chose: Allow')).toBeVisible();
  await context.setOffline(true);
  await expect(
    page.getByText('Not confirmed yet — sent again once the link is back'),
  ).toBeVisible();
  await relay.restart({ crash: true });
  await context.setOffline(false);
  await reconnectIfOffered(page);
  await expect(page.getByText('Turn summary')).toBeVisible({ timeout: 30_000 });
  expect(m.deskLines(/approval \S+ closed: allow/)).toHaveLength(1);
});
