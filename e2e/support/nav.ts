import type { Page } from '@playwright/test';

/** In-app navigation (no reload), like tapping a link. */
export async function nav(page: Page, hash: string) {
  await page.evaluate((h) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = h;
  }, hash);
}

/**
 * The primary Allow of a mock-machine command card: "Allow once" where the machine offers a
 * remembered scope for the command (E2), plain "Allow" where it offers none.
 */
export const ALLOW_RUN = /^Allow(?: once)?: Run a command$/;
