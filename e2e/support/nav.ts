import type { Page } from '@playwright/test';

/** In-app navigation (no reload), like tapping a link. */
export async function nav(page: Page, hash: string) {
  await page.evaluate((h) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = h;
  }, hash);
}
