import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import {
  encodeBoxKey,
  makeBoxKeyPair,
  parsePairing,
  roomKeys,
  sealPhoneMessage,
} from '../protocol/index.ts';
import { untilMachineKnowsApp } from './support/app-phone.ts';
import { makeE6Phone } from './support/e6-phone.ts';
import { expect, expectAccessible, pairByCode, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { readKeyval } from './support/sw.ts';

// E6.9 and E9.19 in Chromium against the mock machine over the real relay: this phone renames
// itself from its own row, a re-pair from this phone keeps it (one row, still approved), and a
// phone holding only a copy of the code can neither take over nor remove the owner's row.

type Stored = { roomId: string; phone?: { phoneId: string; name: string } };
const stored = async (page: Page) => ((await readKeyval(page, 'pairings')) as Stored[])[0];
type Entry = { phoneId: string; name: string; state?: string; revoked: boolean };

test('E6.9/E9.19: renamed on its own row, re-paired from the same phone with no second row and no wait; a copied code cannot take over or remove the owner’s row', async ({
  page,
  machine,
  relay,
}) => {
  const laptop = await machine('laptop');
  const pairing = parsePairing(laptop.pairingCode);
  if (!pairing.ok || pairing.value.boxKey === undefined) throw new Error('a code with a key');
  const roomId = roomKeys(pairing.value.secretBytes).roomId;
  await pairByCode(page, laptop.pairingCode, 'laptop');
  await expect.poll(async () => (await stored(page))?.phone?.phoneId).toBeTruthy();
  const me = (await stored(page))!.phone!.phoneId;
  await untilMachineKnowsApp(page, roomId);
  // The attacker: a phone of its own holding only the copied code (it waits, E9.9).
  const copy = await makeE6Phone(relay.url, laptop.pairingCode, 'Copied code');
  const listOf = (pred: (list: Entry[]) => boolean) =>
    copy
      .socket()
      .waitForMessage((m) => m.type === 'phones' && pred(m.phones as Entry[])) as Promise<{
      phones: Entry[];
    }>;
  await listOf((l) => l.length === 2);

  // E6.9: the name is edited on this phone's own row; the machine's list says the new name.
  await nav(page, `#/m/${roomId}/phones`);
  const rows = page.getByRole('list', { name: 'Phones' }).getByRole('listitem');
  const mine = rows.filter({ hasText: 'This phone' });
  await mine.getByLabel('Name of this phone').fill('Work Pixel');
  await mine.getByRole('button', { name: 'Save name' }).click();
  await listOf((l) => l.some((p) => p.phoneId === me && p.name === 'Work Pixel'));
  await expect(mine.locator('.row-title')).toContainText('Work Pixel');
  await expectAccessible(page, 'Machine › Phones with the name field on this phone’s row');

  // E9.19: the owner pairs again from this phone with the same code: one row, same phone,
  // still approved (not "Waiting for approval"), and it can still act (approves nobody by
  // mistake: it only sees the copied code's phone waiting).
  await pairByCode(page, laptop.pairingCode, 'laptop');
  expect((await stored(page))?.phone?.phoneId).toBe(me);
  await nav(page, `#/m/${roomId}/phones`);
  await expect(rows).toHaveCount(2);
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText('Work Pixel');
  await expect(mine).not.toContainText('Waiting for approval');
  await expect(rows.filter({ hasText: 'Copied code' })).toContainText('Waiting for approval');

  // The copied code as an attacker would use it: a plain register naming the owner's phone, a
  // sealed one naming it with another key, and a revoke of it — each refused, the row intact.
  const before = copy.socket().messages.length;
  const errors = () =>
    copy
      .socket()
      .messages.slice(before)
      .filter((m) => m.type === 'error')
      .map((m) => m.reason);
  const thief = makeBoxKeyPair();
  const claim = {
    type: 'phone.register',
    requestId: randomUUID(),
    phoneId: me,
    name: 'Work Pixel',
    boxKey: encodeBoxKey(thief.publicKey),
  };
  copy.socket().sendMessage({ v: 1, ts: Date.now(), ...claim });
  const text = JSON.stringify({ v: 1, ts: Date.now(), ...claim, requestId: randomUUID() });
  const machineKey = Uint8Array.from(Buffer.from(pairing.value.boxKey, 'base64url'));
  copy.socket().sendMessage({
    v: 1,
    type: 'phone.sealed',
    ts: Date.now(),
    phoneId: me,
    message: text,
    box: sealPhoneMessage(text, machineKey, thief.secretKey),
  });
  copy.send({ type: 'phone.revoke', requestId: randomUUID(), phoneId: me });
  await expect.poll(errors).toEqual(['identity-required', 'identity-required', 'phone-pending']);
  expect(laptop.deskLines(/revoked/)).toEqual([]);
  await page.reload();
  await expect(mine).toContainText('Work Pixel');
  await expect(mine).not.toContainText('Revoked');
  await expect(rows).toHaveCount(2);
  await copy.close();
});
