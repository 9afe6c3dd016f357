// Steps the phone-truth specs share: a paired test machine, a session started from the phone on
// the mock machine, and a barrier that proves everything sent before it reached the machine.
import type { Page } from '@playwright/test';
import { expect, pairByCode } from './fixtures.ts';
import type { MockMachine } from './processes.ts';
import { nav } from './nav.ts';
import { makeTestMachine, type TestMachine } from './test-machine.ts';

/** A test machine on the relay, connected, and paired with the phone. */
export async function pairedTestMachine(page: Page, relayUrl: string, name = 'demo') {
  const machine = makeTestMachine(relayUrl, name);
  await machine.connect();
  await pairAndJoin(page, machine, name);
  return machine;
}

/**
 * Pairs the phone with a connected test machine and waits until the phone's socket has joined
 * the room. The machine page shows before that (A8: the room connects once the crypto chunk has
 * loaded); what the test machine says before then reaches no phone (the relay keeps nothing for
 * a room without one), and only status, snapshot and open cards are said again on the join (D8).
 */
export async function pairAndJoin(page: Page, machine: TestMachine, name: string) {
  await pairByCode(page, machine.code, name);
  await machine.waitFor(() => machine.phonePresence.includes(true));
}

/** Pairs with the mock machine and starts a session with `prompt` from the New-session screen. */
export async function startSession(page: Page, m: MockMachine, prompt: string, name = 'demo') {
  await pairByCode(page, m.pairingCode, name);
  await nav(page, '#/new');
  await page.getByLabel('Prompt').fill(prompt);
  await page.getByRole('button', { name: 'Start session' }).click();
  await expect(page.getByText('Started from phone')).toBeVisible();
}

/** Everything the phone sent before this point reached the machine (reload = fresh sessions.get). */
export async function barrier(page: Page, machine: TestMachine) {
  const count = () => machine.received.filter((m) => m.type === 'sessions.get').length;
  const before = count();
  await page.reload();
  await machine.waitFor(() => count() > before);
}
