import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config.ts';
import { buildBundles } from '../../testkit/bundles.ts';

/**
 * Playwright's global setup: says which browser this run drives (Debian updates its Chromium under
 * the suite; the CI log then names the version a failure ran on, and docs/quality.md the last one
 * the suite passed on), and bundles the product's child-process entries once per run.
 */
export default async function globalSetup(): Promise<void> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    console.log(`e2e browser: Chromium ${browser.version()} (${CHROMIUM_PATH})`);
  } finally {
    await browser.close();
  }
  await buildBundles();
}
