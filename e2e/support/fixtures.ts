import { AxeBuilder } from '@axe-core/playwright';
import { test as base, expect, type Page } from '@playwright/test';
import { APP_ORIGIN } from '../../playwright.config.ts';
import { animationsDone } from './animations.ts';
import { startMachine, startRelay, type MockMachine, type Relay } from './processes.ts';

export { animationsDone };

/** Every test gets its own relay on a free port, stopped (whole process group) afterwards. */
export const test = base.extend<{
  relay: Relay;
  /** Starts a mock machine on the test's relay; every one is stopped after the test. */
  machine: (
    name: string,
    options?: { allowFullAccess?: boolean; env?: Record<string, string>; args?: string[] },
  ) => Promise<MockMachine>;
}>({
  relay: async ({}, use) => {
    const relay = await startRelay();
    try {
      await use(relay);
    } finally {
      await relay.stop();
    }
  },
  machine: async ({ relay }, use) => {
    const started: MockMachine[] = [];
    try {
      await use(async (name, options = {}) => {
        const m = await startMachine({ relay: relay.url, name, appUrl: APP_ORIGIN, ...options });
        started.push(m);
        return m;
      });
    } finally {
      await Promise.all(started.map((m) => m.stop()));
    }
  },
});
export { expect };
export const appUrl = APP_ORIGIN;

/** A7: zero serious or critical axe violations on every screen. */
export async function expectAccessible(page: Page, screen: string) {
  await animationsDone(page);
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(bad, `axe on ${screen}`).toEqual([]);
}

/** Pairs through the paste box and confirms; returns when the machine screen shows. */
export async function pairByCode(page: Page, code: string, machineName: string) {
  await page.goto('/#/pair');
  await page.getByLabel('Pairing code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText(`Machine: ${machineName}`)).toBeVisible();
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: machineName })).toBeVisible();
}
