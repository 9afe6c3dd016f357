/// <reference lib="dom" />
// Pictures for the polish pass (SC3.3, SC7, E11.4, U4.7), for review by eye, written to SHOTS_DIR
// (default screenshots/polish): the inbox at 390 px dark and at 320 px with 200 % text, Machine ›
// Phones in Chinese dark and light, and a session started at the desk (E10 hooks, fed by the real
// hook program as in e2e/desk-hooks.spec.ts). Real relay and mock machine. Run: `npx vite build &&
// CI=true E2E_PORT=<port> npx playwright test -c playwright.extra.config.ts e2e/polish.shots.ts`.
// Not part of `npm test`.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path, { join } from 'node:path';
import type { CDPSession, Page } from '@playwright/test';
import { HOOK_PROGRAM } from '../machine/hooks/claude-settings.ts';
import { pairAsFirstPhone } from './support/app-phone.ts';
import { makeE6Phone } from './support/e6-phone.ts';
import { expect, test } from './support/fixtures.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';

const OUT = path.resolve(process.env.SHOTS_DIR ?? 'screenshots/polish');
type Look = { width: number; dark?: boolean; zh?: boolean; text200?: boolean };

async function wear(page: Page, cdp: CDPSession, look: Look) {
  await page.setViewportSize({ width: look.width, height: 844 });
  await page.emulateMedia({ colorScheme: look.dark ? 'dark' : 'light' });
  await page.evaluate((zh) => localStorage.setItem('dsh.locale', zh ? 'zh-CN' : 'en'), !!look.zh);
  const size = look.text200 ? { standard: 32, fixed: 26 } : { standard: 16, fixed: 13 };
  await cdp.send('Page.setFontSizes', { fontSizes: size });
  await page.reload();
}

/**
 * The whole page as a phone that tall would show it, one image pixel a CSS pixel. (Playwright's
 * `fullPage` drops the text size Page.setFontSizes set while it captures, so the viewport is made
 * as tall as the page instead, as e2e/states.shots.ts does.)
 */
async function snap(page: Page, name: string, ready: string, only?: string[]) {
  await expect(page.locator(ready).first()).toBeVisible({ timeout: 20_000 });
  await page.evaluate(() => document.fonts.ready);
  const viewport = page.viewportSize()!;
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: viewport.width, height });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(
    () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
  );
  // With `only`, just the box around those elements (small enough for docs/screens/).
  const clip =
    only === undefined
      ? undefined
      : await page.evaluate((selectors) => {
          const boxes = selectors.flatMap((q) =>
            [...document.querySelectorAll(q)].map((e) => e.getBoundingClientRect()),
          );
          const top = Math.max(0, Math.min(...boxes.map((b) => b.top)) - 8);
          const bottom = Math.max(...boxes.map((b) => b.bottom)) + 8;
          return { x: 0, y: top, width: innerWidth, height: bottom - top };
        }, only);
  await page.screenshot({
    path: path.join(OUT, `${name}.png`),
    animations: 'disabled',
    scale: 'css',
    ...(clip ? { clip } : {}),
  });
  // For reading at full size: the same page in screen-high parts (SHOTS_PARTS=1).
  if (process.env.SHOTS_PARTS === '1')
    for (let y = 0, i = 0; y < height; y += 800, i += 1)
      await page.screenshot({
        path: path.join(OUT, 'parts', `${name}-${i}.png`),
        animations: 'disabled',
        scale: 'css',
        clip: { x: 0, y, width: viewport.width, height: Math.min(800, height - y) },
      });
  await page.setViewportSize(viewport);
}

/** Runs the hook program as Claude Code does; resolves with what it printed. */
function hook(socket: string, event: object): Promise<string> {
  const child = spawn(process.execPath, [HOOK_PROGRAM, socket], { stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(JSON.stringify(event));
  return new Promise((r) => child.on('exit', () => r(out)));
}

test('Pictures: the inbox, Machine › Phones in Chinese, a session started at the desk', async ({
  page,
  context,
  machine,
  relay,
}) => {
  test.setTimeout(4 * 60_000);
  const laptop = await machine('laptop');
  const room = await pairAsFirstPhone(page, laptop.pairingCode, 'laptop');
  const a = await makeE6Phone(relay.url, laptop.pairingCode, 'iPhone 15 · Safari');
  const b = await makeE6Phone(relay.url, laptop.pairingCode, 'Galaxy S24 · Samsung Internet');
  await page.getByRole('button', { name: 'Approve iPhone 15 · Safari' }).click();
  await expect(page.getByRole('button', { name: /Approve iPhone/ })).toHaveCount(0);

  const start = async (prompt: string, ready: () => Promise<void>) => {
    await nav(page, '#/new');
    await page.getByLabel('Prompt').fill(prompt);
    await page.getByRole('button', { name: 'Start session' }).click();
    await ready();
    return new URL(page.url()).hash;
  };
  await start('say: All green.', () =>
    expect(page.getByText('All green.').first()).toBeVisible({ timeout: 20_000 }),
  );
  await start('say: Working through the migration of the billing tables\nsleep: 60000', () =>
    expect(page.locator('.chip.state-running')).toBeVisible({ timeout: 20_000 }),
  );
  await start('say: Checking the tests first.\nrun: npm test -- --reporter=verbose', () =>
    expect(page.getByRole('button', { name: ALLOW_RUN })).toBeEnabled({ timeout: 20_000 }),
  );

  // A session started at the desk: Claude Code's hooks tell the machine of it (E10).
  const socket = join(laptop.stateDir, 'hooks.sock');
  const transcript = join(laptop.root, 'session.jsonl');
  writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'Tidy the notes folder and sum up what changed' } })}\n`,
  );
  const base = { session_id: 'desk-shots-1', transcript_path: transcript, cwd: laptop.root };
  await hook(socket, {
    ...base,
    hook_event_name: 'UserPromptSubmit',
    prompt: 'Tidy the notes folder and sum up what changed',
  });
  const decision = hook(socket, {
    ...base,
    hook_event_name: 'PermissionRequest',
    tool_name: 'Bash',
    tool_input: { command: 'ls -la notes', description: 'List the notes' },
  });
  await nav(page, '#/');
  await page
    .getByRole('link', { name: /Tidy the notes folder/ })
    .first()
    .click();
  await expect(page.getByRole('button', { name: 'Allow once: Run ls -la notes' })).toBeEnabled({
    timeout: 20_000,
  });
  const desk = new URL(page.url()).hash;

  const cdp = await context.newCDPSession(page);
  const inboxLists = [
    'section[aria-labelledby="inbox-machines"]',
    'section[aria-labelledby="inbox-sessions"]',
  ];
  const phones = `#/m/${room}/phones`;
  const deskTop = ['.page-title', '.session-page .section', '.tl-item.entry'];
  const looks: [string, Look, string, string, string[]][] = [
    ['inbox-390-dark-en', { width: 390, dark: true }, '#/', '.list.sessions li', inboxLists],
    [
      'inbox-320-text200-en',
      { width: 320, text200: true },
      '#/',
      '.list.sessions li',
      ['.list.sessions > li:nth-child(-n+3)'],
    ],
    [
      'phones-390-dark-zh',
      { width: 390, dark: true, zh: true },
      phones,
      'li.phone >> nth=2',
      ['ul.phones > li:nth-child(-n+2)'],
    ],
    [
      'phones-390-light-zh',
      { width: 390, zh: true },
      phones,
      'li.phone >> nth=2',
      ['ul.phones > li:nth-child(-n+2)'],
    ],
    ['session-desk-390-light-en', { width: 390 }, desk, '.card.approval .btn.allow', deskTop],
    [
      'session-desk-390-dark-zh',
      { width: 390, dark: true, zh: true },
      desk,
      '.card.approval .btn.allow',
      deskTop,
    ],
  ];
  for (const [name, look, hash, ready, only] of looks) {
    await wear(page, cdp, look);
    await nav(page, hash);
    await snap(page, `${name}-whole`, ready);
    await snap(page, name, ready, only);
  }
  // The desk's card answered from the phone, so the hook program ends.
  await wear(page, cdp, { width: 390 });
  await nav(page, desk);
  await page.getByRole('button', { name: 'Allow once: Run ls -la notes' }).click();
  await decision;

  // SC3.3: the machine dies mid-turn; its sessions are what it last said, "as of" when.
  await laptop.proc.kill();
  for (const [name, look] of [
    ['away-390-dark-en', { width: 390, dark: true }],
    ['away-390-light-zh', { width: 390, zh: true }],
  ] as const) {
    await wear(page, cdp, look);
    await nav(page, '#/');
    await snap(page, name, '.list.sessions .chip.state-away', inboxLists);
  }
  await a.close();
  await b.close();
});
