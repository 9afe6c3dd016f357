import { animationsDone, expect, test } from './support/fixtures.ts';
import { pairAsFirstPhone } from './support/app-phone.ts';
import { makeE6Phone, type E6Phone } from './support/e6-phone.ts';
import { nav } from './support/nav.ts';
import { readKeyval } from './support/sw.ts';
import { parsePairing, roomKeys } from '../protocol/index.ts';
import type { Page } from '@playwright/test';

// E6 in the app against the mock machine over the real relay, with two of the project's test
// phones (e2e/support/e6-phone.ts) beside the app: three phones, each its own identity.

type Stored = { roomId: string; secret: string; phone?: { phoneId: string; name: string } };
const stored = async (page: Page) => ((await readKeyval(page, 'pairings')) as Stored[])[0];
const phonesOf = (p: E6Phone, count: number) =>
  p
    .socket()
    .waitForMessage(
      (m) => m.type === 'phones' && (m.phones as unknown[]).length === count,
    ) as Promise<{ phones: { phoneId: string; name: string; revoked: boolean }[] }>;

test('E6: three phones — revoked phones are cut off and the app moves to the new room with no user action, also after being offline during the revoke; Machine › Phones revokes after the name is typed', async ({
  page,
  context,
  machine,
  relay,
}) => {
  const laptop = await machine('laptop');
  const pairing = parsePairing(laptop.pairingCode);
  if (!pairing.ok) throw new Error(pairing.message);
  // E9: the app pairs first, so it is the approved phone; A and B, paired later, wait for it.
  const roomId = await pairAsFirstPhone(page, laptop.pairingCode, 'laptop');
  const a = await makeE6Phone(relay.url, laptop.pairingCode, 'Test phone A');
  const b = await makeE6Phone(relay.url, laptop.pairingCode, 'Test phone B');
  const listed = await phonesOf(a, 3);
  const app = await stored(page);
  expect(listed.phones.map((p) => p.phoneId)).toContain(app?.phone?.phoneId);

  // E9: Machine › Phones shows A and B waiting, with their key fingerprints; the app lets A in.
  await nav(page, `#/m/${roomId}/phones`);
  const waiting = page.getByRole('list', { name: 'Phones' }).getByRole('listitem');
  await expect(waiting.filter({ hasText: 'Waiting for approval' })).toHaveCount(2);
  await expect(waiting.filter({ hasText: 'Test phone A' })).toContainText(/Key [0-9a-f]{4}-/);
  await page.getByRole('button', { name: 'Approve Test phone A' }).click();
  await a.untilApproved();
  await nav(page, '#/');

  // 1. The app is offline while A revokes B: it moves when it comes back, with no user action.
  await context.setOffline(true);
  await expect(page.getByText(/You are offline/).first()).toBeVisible();
  a.send({ type: 'phone.revoke', requestId: crypto.randomUUID(), phoneId: b.phoneId });
  const told = await b
    .socket()
    .waitForMessage(
      (m) =>
        m.type === 'phones' &&
        (m.phones as { phoneId: string; revoked: boolean }[]).some(
          (p) => p.phoneId === b.phoneId && p.revoked,
        ),
    );
  expect(told).toBeTruthy();
  await a.follow();
  await context.setOffline(false);
  await expect.poll(async () => (await stored(page))?.roomId).toBe(a.roomId());
  expect((await stored(page))?.secret).toBe(a.secret());
  expect(JSON.stringify(await readKeyval(page, 'pairings'))).not.toContain(pairing.value.secret);

  // B (revoked) comes back to the old room: nothing boxed for it, and the room stays silent.
  await b.close();
  await b.join();

  // 2. Machine › Phones: all three, this phone marked, B revoked; revoking A needs its name typed.
  await nav(page, `#/m/${a.roomId()}/phones`);
  const rows = page.getByRole('list', { name: 'Phones' }).getByRole('listitem');
  await expect(rows).toHaveCount(3);
  await expect(rows.filter({ hasText: 'This phone' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'Test phone B' })).toContainText('Revoked');
  // Two phones of one name (every browser of a model starts as the same "Pixel 7 · Chrome") are
  // told apart by a short id, on the row and on its Revoke button.
  await page.getByLabel('Name of this phone').fill('Test phone A');
  await page.getByRole('button', { name: 'Save name' }).click();
  const rowOf = (phoneId: string) => page.locator(`li[data-phone-id="${phoneId}"]`);
  await expect(rowOf(a.phoneId)).toContainText(`ID ${a.phoneId.slice(0, 6)}`);
  await expect(rowOf(app!.phone!.phoneId)).toContainText(`ID ${app!.phone!.phoneId.slice(0, 6)}`);
  await expect(rowOf(b.phoneId)).not.toContainText('ID ');
  // SC7: this phone comes first, every phone says when the machine last saw it, and the phones
  // that share a name also say when each was paired.
  await expect(rows.first()).toContainText('This phone');
  for (const row of await rows.all()) await expect(row).toContainText(/Last seen \S/);
  await expect(rowOf(a.phoneId)).toContainText(/Paired \S.* · ID /);
  await expect(rowOf(app!.phone!.phoneId)).toContainText(/Paired \S.* · ID /);
  await expect(rowOf(b.phoneId)).not.toContainText('Paired');
  await page
    .getByRole('button', { name: `Revoke Test phone A (ID ${a.phoneId.slice(0, 6)})` })
    .click();
  const confirm = page.getByRole('button', { name: 'Revoke this phone' });
  await expect(confirm).toBeDisabled();
  await page.getByLabel('Type Test phone A to confirm').fill('Test phone');
  await expect(confirm).toBeDisabled();
  await page.getByLabel('Type Test phone A to confirm').fill('Test phone A');
  await confirm.click();
  const before = a.roomId();
  // A learns it was revoked; the app follows its own rotate at once, A cannot open one.
  await a
    .socket()
    .waitForMessage(
      (m) =>
        m.type === 'phones' &&
        (m.phones as { phoneId: string; revoked: boolean }[]).some(
          (p) => p.phoneId === a.phoneId && p.revoked,
        ),
    );
  await expect.poll(async () => (await stored(page))?.roomId).not.toBe(before);
  const moved = await stored(page);
  expect(moved?.roomId).toBe(roomKeys(Buffer.from(moved?.secret ?? '', 'base64url')).roomId);
  await expect(rowOf(a.phoneId)).toContainText('Revoked');
  expect(b.socket().messages.filter((m) => m.type === 'room.rotate')).toEqual([]);
  expect(
    a.socket().messages.filter((m) => m.type === 'room.rotate' && m.phoneId === a.phoneId),
  ).toEqual([]);
  await a.close();
  await b.close();
});

test('SC7: a waiting phone’s Approve and Revoke are 16 px apart at least and 44 px targets, at 320 px with 200 % text, in English and Chinese', async ({
  page,
  context,
  machine,
  relay,
}) => {
  const laptop = await machine('laptop');
  const roomId = await pairAsFirstPhone(page, laptop.pairingCode, 'laptop');
  const a = await makeE6Phone(relay.url, laptop.pairingCode, 'Galaxy S24 · Samsung Internet');
  await phonesOf(a, 2);
  await page.setViewportSize({ width: 320, height: 700 });
  const cdp = await context.newCDPSession(page);
  await cdp.send('Page.setFontSizes', { fontSizes: { standard: 32, fixed: 26 } });
  for (const locale of ['en', 'zh-CN']) {
    await page.evaluate((l) => localStorage.setItem('dsh.locale', l), locale);
    await page.reload();
    await nav(page, `#/m/${roomId}/phones`);
    const row = page.locator(`li[data-phone-id="${a.phoneId}"]`);
    const approve = row.locator('.btn.allow');
    const revoke = row.locator('.btn.deny');
    await expect(approve).toBeEnabled({ timeout: 20_000 });
    await expect(revoke).toBeEnabled();
    await approve.scrollIntoViewIfNeeded();
    await animationsDone(page);
    const [p, r] = [(await approve.boundingBox())!, (await revoke.boundingBox())!];
    for (const box of [p, r]) {
      expect(box.height).toBeGreaterThanOrEqual(44);
      expect(box.width).toBeGreaterThanOrEqual(44);
    }
    // Stacked: 16 px from Approve's bottom edge to Revoke's top; side by side: 16 px between.
    const apart = Math.max(r.y - (p.y + p.height), r.x - (p.x + p.width), p.x - (r.x + r.width));
    expect(apart, `${locale}: Approve and Revoke are ${apart} px apart`).toBeGreaterThanOrEqual(16);
    // Nothing sideways: both inside the 320 px screen.
    for (const box of [p, r]) expect(box.x + box.width).toBeLessThanOrEqual(320);
  }
  await a.close();
});

test('E6: a revoke being confirmed keeps what the owner typed when the machine re-sends the phone list (another phone pairs meanwhile)', async ({
  page,
  machine,
  relay,
}) => {
  const laptop = await machine('laptop');
  const roomId = await pairAsFirstPhone(page, laptop.pairingCode, 'laptop');
  const a = await makeE6Phone(relay.url, laptop.pairingCode, 'Test phone A');
  await phonesOf(a, 2);
  await nav(page, `#/m/${roomId}/phones`);
  await page.getByRole('button', { name: 'Revoke Test phone A' }).click();
  const typed = page.getByLabel('Type Test phone A to confirm');
  await typed.fill('Test pho');
  await typed.evaluate((el) => el.setAttribute('data-before-list', ''));
  const b = await makeE6Phone(relay.url, laptop.pairingCode, 'Test phone B');
  await phonesOf(b, 3);
  await expect(
    page
      .getByRole('list', { name: 'Phones' })
      .getByRole('listitem')
      .filter({ hasText: 'Test phone B' }),
  ).toBeVisible();
  // The same field, not a new one: what was typed and where the cursor was are still there.
  await expect(typed).toHaveAttribute('data-before-list', '');
  await expect(typed).toHaveValue('Test pho');
  await expect(typed).toBeFocused();
  await a.close();
  await b.close();
});
