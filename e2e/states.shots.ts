/// <reference lib="dom" />
// Pictures of the session screen's states and Machine › Phones (E11.6, U4.offline, E6/E9) for
// review by eye, written to SHOTS_DIR (default screenshots/states): 390 px light English, 320 px
// with the owner's text at 200 %, 390 px dark Chinese. Real relay and mock machines; the app is
// one phone paired by its code, two of the project's test phones beside it. Run: `npx vite build
// && CI=true E2E_PORT=<port> npx playwright test -c playwright.extra.config.ts
// e2e/states.shots.ts`. Not part of `npm test`.
import path from 'node:path';
import type { CDPSession, Page } from '@playwright/test';
import { pairAsFirstPhone } from './support/app-phone.ts';
import { makeE6Phone } from './support/e6-phone.ts';
import { expect, pairByCode, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';

const OUT = path.resolve(process.env.SHOTS_DIR ?? 'screenshots/states');
type Look = { name: string; width: number; dark?: boolean; zh?: boolean; text200?: boolean };
const LOOKS: Look[] = [
  { name: '390-light-en', width: 390 },
  { name: '320-text200-en', width: 320, text200: true },
  { name: '390-dark-zh', width: 390, dark: true, zh: true },
];

async function wear(page: Page, cdp: CDPSession, look: Look) {
  await page.setViewportSize({ width: look.width, height: 844 });
  await page.emulateMedia({ colorScheme: look.dark ? 'dark' : 'light' });
  await page.evaluate((zh) => localStorage.setItem('dsh.locale', zh ? 'zh-CN' : 'en'), !!look.zh);
  const size = look.text200 ? { standard: 32, fixed: 26 } : { standard: 16, fixed: 13 };
  await cdp.send('Page.setFontSizes', { fontSizes: size });
  await page.reload();
}

async function snap(
  page: Page,
  look: Look,
  name: string,
  ready: string,
  top = false,
  /** Only the last this many CSS pixels of the page (the decision bar, Stop, the reply box). */
  endPx?: number,
) {
  await expect(page.locator(ready).first()).toBeVisible({ timeout: 20_000 });
  await page.evaluate(() => document.fonts.ready);
  if (top) await page.evaluate(() => window.scrollTo(0, 0));
  // The whole page as a phone that tall would show it (pinned bars where they belong), one
  // image pixel a CSS pixel, small enough for docs/screens/.
  const viewport = page.viewportSize()!;
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: viewport.width, height });
  if (top) await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
  await page.screenshot({
    path: path.join(OUT, look.name, `${name}.png`),
    animations: 'disabled',
    scale: 'css',
    ...(endPx !== undefined
      ? { clip: { x: 0, y: Math.max(0, height - endPx), width: viewport.width, height: endPx } }
      : {}),
  });
  await page.setViewportSize(viewport);
}

test('Pictures: the session screen offline, ended, and Machine › Phones', async ({
  page,
  context,
  machine,
  relay,
}) => {
  test.setTimeout(4 * 60_000);
  const laptop = await machine('laptop');
  const server = await machine('build-server');
  const laptopRoom = await pairAsFirstPhone(page, laptop.pairingCode, 'laptop');
  await pairByCode(page, server.pairingCode, 'build-server');
  await nav(page, `#/m/${laptopRoom}/phones`);
  const a = await makeE6Phone(relay.url, laptop.pairingCode, 'iPhone 15 · Safari');
  const b = await makeE6Phone(relay.url, laptop.pairingCode, 'Galaxy S24 · Samsung Internet');
  await page.getByRole('button', { name: 'Approve iPhone 15 · Safari' }).click();
  await expect(page.getByRole('button', { name: /Approve iPhone/ })).toHaveCount(0);

  // A session on each machine with an approval open; then the build server goes away.
  const start = async (name: string, prompt: string) => {
    await nav(page, '#/new');
    await page.locator('form select').first().selectOption({ label: name });
    await page.getByLabel('Prompt').fill(prompt);
    await page.getByRole('button', { name: 'Start session' }).click();
    await expect(page.getByRole('button', { name: ALLOW_RUN })).toBeEnabled({ timeout: 20_000 });
    return new URL(page.url()).hash;
  };
  const onLaptop = await start('laptop', 'say: Checking the tests first.\nrun: npm test');
  const onServer = await start('build-server', 'run: make deploy');
  await server.stop();

  const cdp = await context.newCDPSession(page);
  for (const look of LOOKS) {
    await wear(page, cdp, look);
    await nav(page, onServer);
    await snap(page, look, 'session-machine-offline', '.tr-banner');
    await context.setOffline(true);
    await nav(page, onLaptop);
    await snap(page, look, 'session-phone-offline', '.card.approval .btn.allow:disabled');
    await snap(page, look, 'session-phone-offline-end', '#reply-blocked', false, 840);
    await context.setOffline(false);
    await nav(page, `#/m/${laptopRoom}/phones`);
    await snap(page, look, 'phones', 'li.phone >> nth=2', true);
  }

  await laptop.restart();
  for (const look of LOOKS) {
    await wear(page, cdp, look);
    await nav(page, onLaptop);
    await snap(page, look, 'session-ended', '#ended-title', true);
  }
  await a.close();
  await b.close();
});
