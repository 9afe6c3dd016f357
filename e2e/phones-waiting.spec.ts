import { randomUUID } from 'node:crypto';
import { expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { pairAsFirstPhone, roomIdOf } from './support/app-phone.ts';
import { makeE6Phone } from './support/e6-phone.ts';
import { nav } from './support/nav.ts';
import { readKeyval } from './support/sw.ts';

// E9.9 as the second phone lives it: the app pairs with a machine that already has its approved
// phone (one of the project's test phones, e2e/support/e6-phone.ts), waits, and is let in. It
// holds the room key, so it reads what the room carries (the session below) while it waits.

type Stored = { roomId: string; phone?: { phoneId: string } };

test('E9.9: a phone paired second waits — the machine screen says so with its key and where to approve it, offers no Start and shows no red error, the new-session form says why; let in, the banner goes and Start comes back', async ({
  page,
  machine,
  relay,
}) => {
  const laptop = await machine('laptop');
  const roomId = roomIdOf(laptop.pairingCode);
  const owner = await makeE6Phone(relay.url, laptop.pairingCode, 'Owner phone');
  await owner.socket().waitForMessage((m) => m.type === 'phones');
  // The owner's phone starts a session before the app is let in.
  const requestId = randomUUID();
  owner.send({
    type: 'dispatch.request',
    requestId,
    phoneId: owner.phoneId,
    prompt: 'say: started before you were let in',
    cwd: laptop.root,
    worktree: false,
  });
  const result = await owner
    .socket()
    .waitForMessage((m) => m.type === 'dispatch.result' && m.requestId === requestId);
  expect(result.ok).toBe(true);

  await pairByCode(page, laptop.pairingCode, 'laptop');
  const waiting = page.getByRole('status').filter({ hasText: 'Waiting for approval' });
  await expect(waiting).toBeVisible({ timeout: 20_000 });
  await expect(waiting).toContainText('Approve “Pixel 7 · Chrome” on a phone already paired');
  await expect(waiting).toContainText(/This phone’s key [0-9a-f]{4}-[0-9a-f]{4}-/);
  await expect(page.getByRole('link', { name: 'Start a session' })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Errors' })).toHaveCount(0);
  await expect(page.locator('.banner.bad')).toHaveCount(0);
  await expectAccessible(page, 'Machine, waiting for approval');

  await nav(page, `#/new/${roomId}`);
  await expect(
    page.getByText('This phone waits for approval — nothing is sent until it is let in.'),
  ).toBeVisible();

  // The owner lets it in.
  const app = ((await readKeyval(page, 'pairings')) as Stored[])[0];
  owner.send({ type: 'phone.approve', requestId: randomUUID(), phoneId: app?.phone?.phoneId });
  await nav(page, `#/m/${roomId}`);
  await expect(page.getByText('say: started before you were let in')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Start a session' })).toBeVisible();
  await expect(waiting).toHaveCount(0);
  await owner.close();
});

test('E9: Forget says before, not after, that pairing again makes a new phone another phone or the computer must let in', async ({
  page,
  machine,
}) => {
  const laptop = await machine('laptop');
  const roomId = await pairAsFirstPhone(page, laptop.pairingCode, 'laptop');
  await nav(page, `#/m/${roomId}`);
  const asked = new Promise<string>((resolve) =>
    page.once('dialog', (d) => {
      resolve(d.message());
      void d.dismiss();
    }),
  );
  await page.getByRole('button', { name: 'Forget this machine' }).click();
  expect(await asked).toBe(
    'Forget laptop? Its secret and this phone’s identity are deleted from this phone. Paired again, this is a new phone: another approved phone or the computer must let it in.',
  );
  // Dismissed: nothing was forgotten.
  await expect(page.getByRole('heading', { level: 1, name: 'laptop' })).toBeVisible();
});

test('E9.9: on the approved phone a new phone asking to join is said in the inbox and on the machine screen, with the way to Phones; let in, the notice goes', async ({
  page,
  machine,
  relay,
}) => {
  const laptop = await machine('laptop');
  const roomId = await pairAsFirstPhone(page, laptop.pairingCode, 'laptop');
  const asking = page.getByRole('status').filter({ hasText: 'Phones asking to join laptop: 1' });
  await nav(page, '#/');
  await expect(asking).toHaveCount(0);
  const b = await makeE6Phone(relay.url, laptop.pairingCode, 'Test phone B');
  await expect(asking).toBeVisible({ timeout: 20_000 });
  await expect(asking).toContainText('Let one in only if you just paired it yourself.');
  await nav(page, `#/m/${roomId}`);
  await expect(asking).toBeVisible();
  await asking.getByRole('link', { name: 'Review phones' }).click();
  await page.getByRole('button', { name: 'Approve Test phone B' }).click();
  await b.untilApproved();
  await nav(page, '#/');
  await expect(page.getByRole('heading', { level: 2, name: 'Machines' })).toBeVisible();
  await expect(asking).toHaveCount(0);
  await b.close();
});
