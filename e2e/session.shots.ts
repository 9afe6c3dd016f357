/// <reference lib="dom" />
// SC1 pictures (docs/screens/): the session screen as the phone opens it — 390 px light English,
// 320 px with the owner's text at 200 %, 390 px dark Chinese — written to SHOTS_DIR (default
// screenshots/session). Run: `npx vite build && CI=true E2E_PORT=<port> npx playwright test -c
// playwright.extra.config.ts e2e/session.shots.ts`. Real relay and mock machine; a session with
// text, a listing, a command allowed from the test phone, and one approval still open.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { go, isApproval, pairApp, startAppWorld, type AppWorld } from './support/app-world.ts';

const OUT = path.resolve(process.env.SHOTS_DIR ?? 'screenshots/session');
const PHONE = { isMobile: true, hasTouch: true, deviceScaleFactor: 1 } as const;

let world: AppWorld;
test.afterAll(async () => {
  await world?.close();
});

async function shot(
  browser: Browser,
  name: string,
  hash: string,
  o: { width: number; height: number; dark?: boolean; zh?: boolean; text200?: boolean },
  pair: (page: Page) => Promise<void>,
) {
  const context = await browser.newContext({
    ...PHONE,
    viewport: { width: o.width, height: o.height },
    colorScheme: o.dark ? 'dark' : 'light',
  });
  const page = await context.newPage();
  await pair(page);
  if (o.zh) {
    await page.evaluate(() => localStorage.setItem('dsh.locale', 'zh-CN'));
    await page.reload();
  }
  if (o.text200) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.setFontSizes', { fontSizes: { standard: 32, fixed: 26 } });
  }
  await go(page, hash);
  await expect(page.locator('.card.approval .btn.allow:enabled').first()).toBeAttached({
    timeout: 20_000,
  });
  await expect(page.locator('.transcript .entry').first()).toBeAttached();
  await page.evaluate(() => document.fonts.ready);
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
  if (process.env.SHOTS_DEBUG)
    console.log(
      name,
      await page.evaluate(() => {
        const s = document.scrollingElement!;
        return [s.scrollTop, s.scrollHeight, innerHeight, document.body.offsetHeight];
      }),
    );
  await page.screenshot({ path: path.join(OUT, `${name}.png`), animations: 'disabled' });
  await context.close();
}

test('SC1: pictures of the session screen as it opens', async ({ browser }) => {
  test.setTimeout(5 * 60_000);
  world = await startAppWorld();
  const laptop = await world.addMachine('laptop');
  const sessionId = await laptop.dispatch(
    [
      'say: I will look around first, then run the checks.',
      'list: .',
      "run: printf 'ok 1 parses\\nok 2 renders\\nok 3 sends\\nok 4 keeps drafts\\nok 5 pages\\nok 6 folds\\nok 7 scrolls\\nok 8 ends\\n'",
      'say: All eight checks pass. Now I will publish the branch.',
      'run: git push --force origin main',
    ].join('\n'),
    isApproval,
  );
  const first = laptop.phone.messages.find((m) => isApproval(m, sessionId))!;
  const before = laptop.phone.messages.length;
  laptop.phone.sendMessage({
    v: 1,
    type: 'approval.respond',
    ts: Date.now(),
    requestId: randomUUID(),
    approvalId: first.approvalId,
    decision: 'allow',
  });
  await laptop.phone.waitForMessage(
    (m) => laptop.phone.messages.indexOf(m) >= before && isApproval(m, sessionId),
  );
  const hash = `#/m/${laptop.roomId}/s/${sessionId}`;
  const pair = (page: Page) => pairApp(page, [laptop]);
  await shot(browser, 'session-390-light-en', hash, { width: 390, height: 844 }, pair);
  await shot(
    browser,
    'session-320-text200-en',
    hash,
    { width: 320, height: 640, text200: true },
    pair,
  );
  await shot(
    browser,
    'session-390-dark-zh',
    hash,
    { width: 390, height: 844, dark: true, zh: true },
    pair,
  );
});
