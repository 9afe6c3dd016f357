import type { Page } from '@playwright/test';

/**
 * Waits for the page's running animations to finish. A card slides in (160 ms): a box measured
 * mid-way is off the layout grid (a 44 px target read 43.99997 px) or scaled, and axe would
 * judge contrast on a half-faded frame.
 */
export async function animationsDone(page: Page) {
  await page.evaluate(() =>
    Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined))),
  );
}
