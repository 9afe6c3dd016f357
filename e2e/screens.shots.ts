/// <reference lib="dom" />
// `npm run screenshots` (U6.1): every screen × light/dark × en/zh-Hans × 390/320 px into
// screenshots/ (git-ignored), for review by eye. Real processes drive the app into each state: the
// relay, two mock machines (one stopped to show "offline"), and scripted sessions that stop at
// each kind of card (docs/mock-agent.md). Not part of `npm test`.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { generateSecret, toBase64Url } from '../protocol/index.ts';
import {
  go,
  inState,
  isApproval,
  isQuestion,
  pairApp,
  startAppWorld,
  type AppWorld,
} from './support/app-world.ts';

const OUT = path.resolve('screenshots');
const WIDTHS = [390, 320] as const;
const THEMES = ['light', 'dark'] as const;
const LOCALES = ['en', 'zh-CN'] as const;
const HEIGHT = 844;
const PHONE = { isMobile: true, hasTouch: true, deviceScaleFactor: 1 } as const;

/** `viewportOnly`: what the phone shows where the hash leaves it (a card link focuses the card). */
type Shot = { name: string; hash: string; ready: string; viewportOnly?: boolean };

let world: AppWorld;
test.afterAll(async () => {
  await world?.close();
});

async function settle(page: Page, ready: string) {
  await expect(page.locator(ready).first()).toBeVisible({ timeout: 20_000 });
  await page.evaluate(() => document.fonts.ready);
}

async function shoot(page: Page, dir: string, index: number, shot: Shot) {
  await go(page, shot.hash);
  await settle(page, shot.ready);
  const file = path.join(dir, `${String(index).padStart(2, '0')}-${shot.name}.png`);
  if (shot.viewportOnly) {
    // A card link has scrolled to its card; any other screen is seen from its top.
    if (!/\/(approval|question)\//.test(shot.hash))
      await page.evaluate(() => window.scrollTo(0, 0));
    await page.evaluate(
      () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
    );
    await page.screenshot({ path: file, animations: 'disabled' });
    return;
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  // A whole page as a phone that tall would show it: pinned bars sit where they belong.
  const viewport = page.viewportSize()!;
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: viewport.width, height });
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(resolve)));
  await page.screenshot({ path: file, animations: 'disabled' });
  await page.setViewportSize(viewport);
}

/** Without a CJK font the zh-Hans screenshots would show boxes, not Chinese. */
function requireCjkFont() {
  let fonts = '';
  try {
    fonts = execFileSync('fc-list', [':lang=zh'], { encoding: 'utf8' });
  } catch {
    // no fontconfig: treated as no font
  }
  if (fonts.trim() === '')
    throw new Error('zh-Hans screenshots need a CJK font: apt-get install -y fonts-noto-cjk');
}

async function setLocale(page: Page, locale: string) {
  await page.evaluate((l) => localStorage.setItem('dsh.locale', l), locale);
  await page.reload();
}

test('Screenshots of every screen', async ({ browser }) => {
  test.setTimeout(15 * 60_000);
  requireCjkFont();
  rmSync(OUT, { recursive: true, force: true });
  world = await startAppWorld();
  const laptop = await world.addMachine('laptop');
  const server = await world.addMachine('build-server-in-the-basement');

  // One session per kind of card, plus running, done and failed ones.
  const s = {
    question: await laptop.dispatch('Summarise this repository for me', isQuestion),
    // The default demo (a prompt that is not a script): a question, then `run: ls -la`.
    command: await laptop.dispatch(
      'Check the build and deploy it to the staging cluster when the tests pass, then post a short summary to the team',
      isQuestion,
    ),
    write: await laptop.dispatch(
      'write: notes/plan.md\n# Plan\n- tidy the README\n- ship it',
      isApproval,
    ),
    multi: await laptop.dispatch(
      'ask-multi: Which checks should run? | lint | unit tests | types | end-to-end tests',
      isQuestion,
    ),
    text: await laptop.dispatch('ask-text: What should the commit message say?', isQuestion),
    running: await laptop.dispatch(
      `say: Working on it\n${'sleep: 60000\n'.repeat(15)}`,
      inState('running'),
    ),
    done: await laptop.dispatch(
      'say: Looked around the folder.\nlist: .\nsay: Nothing needs to change.',
      inState('done'),
    ),
    failed: await laptop.dispatch(
      'say: 整理发布说明并检查所有链接\nfail: 测试失败：3 个用例没有通过',
      inState('error'),
    ),
  };
  await laptop.answerFirst(s.command, isApproval);
  const approvalOf = (sessionId: string) =>
    String(laptop.phone.messages.find((m) => isApproval(m, sessionId))!.approvalId);
  const session = (id: string) => `#/m/${laptop.roomId}/s/${id}`;
  const allow = '.card.approval .btn.allow:enabled';
  const question = '.card.question';
  const shots: Shot[] = [
    { name: 'inbox-busy', hash: '#/', ready: `${allow} >> nth=1` },
    { name: 'machine', hash: `#/m/${laptop.roomId}`, ready: '.presence.ok' },
    { name: 'machine-offline', hash: `#/m/${server.roomId}`, ready: '.presence.bad' },
    {
      // First on this session: the card link mounts the screen, which focuses the card.
      name: 'session-approval-command-from-notification',
      hash: `${session(s.command)}/approval/${approvalOf(s.command)}`,
      ready: allow,
      viewportOnly: true,
    },
    { name: 'session-approval-command', hash: session(s.command), ready: allow },
    { name: 'session-approval-write', hash: session(s.write), ready: allow },
    { name: 'session-question-single', hash: session(s.question), ready: question },
    { name: 'session-question-multi', hash: session(s.multi), ready: question },
    { name: 'session-question-text', hash: session(s.text), ready: question },
    { name: 'session-running', hash: session(s.running), ready: '.chip.state-running' },
    { name: 'session-done', hash: session(s.done), ready: '.transcript .entry' },
    { name: 'session-failed', hash: session(s.failed), ready: '.chip.state-error' },
    { name: 'new-session', hash: `#/new/${laptop.roomId}`, ready: 'textarea' },
    { name: 'pair', hash: '#/pair', ready: 'textarea' },
    { name: 'settings', hash: '#/settings', ready: '#notifications' },
  ];
  // The second machine goes away: its row and screen show it offline.
  await server.stop();

  const unpairedCode = Buffer.from(
    JSON.stringify({
      v: 1,
      relay: world.relay.url,
      secret: toBase64Url(generateSecret()),
      machine: 'studio-mac',
    }),
  ).toString('base64url');

  for (const width of WIDTHS)
    for (const theme of THEMES) {
      const phone = () =>
        browser.newContext({ ...PHONE, viewport: { width, height: HEIGHT }, colorScheme: theme });
      const context = await phone();
      const fresh = await phone();
      const page = await context.newPage();
      const firstRun = await fresh.newPage();
      await pairApp(page, [laptop, server]);
      for (const locale of LOCALES) {
        const dir = path.join(OUT, `${width}-${theme}-${locale}`);
        await firstRun.goto('/');
        await setLocale(firstRun, locale);
        await shoot(firstRun, dir, 0, { name: 'inbox-empty', hash: '#/', ready: '.first-run' });
        await go(firstRun, '#/pair');
        await firstRun.locator('textarea').fill(unpairedCode);
        await firstRun.locator('form .btn.primary').click();
        await shoot(firstRun, dir, 1, {
          name: 'pair-confirm',
          hash: '#/pair',
          ready: '#pair-confirm',
        });
        await setLocale(page, locale);
        for (const [i, shot] of shots.entries()) await shoot(page, dir, i + 2, shot);
      }
      await context.close();
      await fresh.close();
    }

  // Two harder cases at 320 px: landscape, and the owner's text at 200 %.
  const hard = await browser.newContext({ ...PHONE, viewport: { width: 320, height: 568 } });
  const page = await hard.newPage();
  await pairApp(page, [laptop, server]);
  const cdp = await hard.newCDPSession(page);
  await cdp.send('Page.setFontSizes', { fontSizes: { standard: 32, fixed: 26 } });
  const dir = path.join(OUT, 'text-200');
  for (const [i, shot] of shots.entries())
    await shoot(page, dir, i, { ...shot, viewportOnly: true });
  await cdp.send('Page.setFontSizes', { fontSizes: { standard: 16, fixed: 13 } });
  await page.setViewportSize({ width: 568, height: 320 });
  for (const [i, shot] of shots.entries())
    await shoot(page, path.join(OUT, 'landscape'), i, { ...shot, viewportOnly: true });
  await hard.close();
});
