/// <reference lib="dom" />
// U6.2, measured by `npm run bench:app` (not part of `npm test`): from a tap on an approval's
// notification, with the app not running and its service worker installed, to an enabled Allow
// button. Real processes: the relay and the mock machine holding the approval open; the push is
// sealed with the room key and handed to the worker through the DevTools protocol (no push service
// is reachable here). One JSON line per run goes to TAP_FILE.
//
// There is no DevTools command for a notification click: the test asks the worker to run its own
// click handler (PAGE_MESSAGE_TYPES.runNotificationAction). That handler opens the card in a window of the app's
// origin; `clients.openWindow` is refused outside a real click, so the one window there is shows a
// static file of the origin (/favicon.svg, served by the worker) — no app document is alive — and
// the handler navigates it to the card. The clock starts when the message is posted (the tap) and
// stops when a MutationObserver installed at document start sees Allow enabled.
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { compactPush, seal } from '../protocol/index.ts';
import { APP_ORIGIN } from '../playwright.config.ts';
import { PAGE_MESSAGE_TYPES } from '../page-worker/messages.ts';
import { isApproval, pairApp, startAppWorld } from './support/app-world.ts';
import {
  clearNotifications,
  pushDelivery,
  shownNotifications,
  waitForController,
} from './support/sw.ts';

const TAP_FILE = path.resolve('test-results/tap-to-allow.jsonl');
const MAX_RUNS = 100;
const RUNS = Math.min(MAX_RUNS, Math.max(1, Number(process.env.TAP_RUNS ?? 20)));

test('U6.2: notification tap → enabled Allow, app not running', async ({ page, context }) => {
  test.setTimeout(60_000 + RUNS * 20_000);
  mkdirSync(path.dirname(TAP_FILE), { recursive: true });
  const world = await startAppWorld();
  try {
    const laptop = await world.addMachine('laptop');
    const sessionId = await laptop.dispatch('run: echo tapped', isApproval);
    const approvalId = String(
      laptop.phone.messages.find((m) => isApproval(m, sessionId))!.approvalId,
    );
    await context.grantPermissions(['notifications'], { origin: APP_ORIGIN });
    // Every document stamps when it first draws, when its socket opens, when the approval card
    // appears and when its Allow is enabled (the figure measured); the rest say where time goes.
    await context.addInitScript(() => {
      const w = window as unknown as Record<string, number | undefined>;
      const stamp = (name: string) => (w[name] ??= Date.now());
      const Socket = window.WebSocket;
      window.WebSocket = class extends Socket {
        constructor(...args: ConstructorParameters<typeof WebSocket>) {
          super(...args);
          stamp('__socketAt');
          this.addEventListener('open', () => stamp('__socketOpenAt'));
        }
      };
      const look = () => {
        if (document.querySelector('header.bar')) stamp('__drawnAt');
        const allow = document.querySelector<HTMLButtonElement>('.card.approval .btn.allow');
        if (allow) stamp('__cardAt');
        if (allow && !allow.disabled) stamp('__allowAt');
      };
      new MutationObserver(look).observe(document, {
        subtree: true,
        childList: true,
        attributes: true,
        attributeFilter: ['disabled'],
      });
    });
    await pairApp(page, [laptop]);
    await waitForController(page);
    await expect(page.locator('.card.approval .btn.allow')).toBeEnabled();
    const delivery = await pushDelivery(context, page, APP_ORIGIN);
    const push = seal(
      compactPush({ kind: 'approval', sessionId, title: 'Run a command', approvalId }),
      laptop.key,
    );
    try {
      for (let run = 0; run < RUNS; run++) {
        // The app is not running: the origin's one window shows a static file.
        await page.goto('/favicon.svg');
        await clearNotifications(page);
        await delivery.deliver(push);
        await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
        const [shown] = await shownNotifications(page);
        const tappedAt = await page.evaluate(
          ({ type, tag }) => {
            const at = Date.now();
            navigator.serviceWorker.controller!.postMessage({ type, tag, action: '' });
            return at;
          },
          { type: PAGE_MESSAGE_TYPES.runNotificationAction, tag: shown!.tag },
        );
        await page.waitForURL(/#\/m\//);
        await page.waitForFunction(
          () => (window as unknown as Record<string, unknown>).__allowAt !== undefined,
        );
        const t = await page.evaluate(() => {
          const w = window as unknown as Record<string, number>;
          return {
            navigation: performance.timeOrigin,
            drawn: w.__drawnAt!,
            socket: w.__socketAt!,
            socketOpen: w.__socketOpenAt!,
            card: w.__cardAt!,
            allow: w.__allowAt!,
          };
        });
        const since = (at: number) => Math.round(at - tappedAt);
        appendFileSync(
          TAP_FILE,
          `${JSON.stringify({
            tapToAllowMs: since(t.allow),
            navigationMs: since(t.navigation),
            drawnMs: since(t.drawn),
            socketMs: since(t.socket),
            socketOpenMs: since(t.socketOpen),
            cardMs: since(t.card),
          })}\n`,
        );
      }
    } finally {
      await delivery.close();
    }
  } finally {
    await world.close();
  }
});
