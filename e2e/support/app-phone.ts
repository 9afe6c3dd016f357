import { expect, type Page } from '@playwright/test';
import { parsePairing, roomKeys } from '../../protocol/index.ts';
import { pairByCode } from './fixtures.ts';
import { nav } from './nav.ts';

/**
 * E9: the first phone a machine hears from is its approved one. The app stores its identity
 * before its `phone.register` reaches the machine, so a test phone "paired after the app" must
 * wait for this — else, on a busy machine, it registers first and the app is the one waiting.
 * Shown as a user sees it: the app's own row ("This phone") on Machine › Phones.
 */
export async function untilMachineKnowsApp(page: Page, roomId: string) {
  await nav(page, `#/m/${roomId}/phones`);
  const rows = page.getByRole('list', { name: 'Phones' }).getByRole('listitem');
  await expect(rows.filter({ hasText: 'This phone' })).toBeVisible({ timeout: 20_000 });
}

/** The room a pairing code opens. */
export function roomIdOf(code: string): string {
  const pairing = parsePairing(code);
  if (!pairing.ok) throw new Error(pairing.message);
  return roomKeys(pairing.value.secretBytes).roomId;
}

/** Pairs the app by `code` as the machine's approved (first) phone; returns the machine's room. */
export async function pairAsFirstPhone(page: Page, code: string, machineName: string) {
  const roomId = roomIdOf(code);
  await pairByCode(page, code, machineName);
  await untilMachineKnowsApp(page, roomId);
  return roomId;
}
