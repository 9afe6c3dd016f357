import type { Page } from '@playwright/test';

/** In-app navigation (no reload), like tapping a link. */
export async function nav(page: Page, hash: string) {
  await page.evaluate((h) => {
    (globalThis as unknown as { location: { hash: string } }).location.hash = h;
  }, hash);
}

/**
 * The primary Allow of a mock-machine command card: "Allow once" (one wording, E11), named after
 * the command it runs (the card's title is "Run <command>", E11).
 */
export const ALLOW_RUN = /^Allow once: Run \S/;
