/// <reference lib="dom" />
// Code inside page.evaluate runs in the browser: DOM types for it (the rest of e2e/ is Node).
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { serveDistCopy } from './support/static-server.ts';
import { waitForController } from './support/sw.ts';

// N1: installable, offline, and updated only when the user says so.

/** The shell's scripts ran (whatever the app's screens look like): its root has content. */
async function expectAppRendered(page: Page) {
  await expect(page).toHaveTitle('dsh dispatch');
  await expect(page.locator('#root > *').first()).toBeVisible();
}

test('Manifest: installable with id, scope, standalone display and 192/512/maskable PNG icons', async ({
  page,
  request,
}) => {
  await page.goto('/');
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBe('/manifest.webmanifest');
  const manifest = (await (await request.get(href!)).json()) as Record<string, unknown> & {
    icons: Array<{ src: string; sizes: string; purpose: string }>;
  };
  expect(manifest).toMatchObject({
    id: '/',
    name: 'dsh dispatch',
    short_name: 'dispatch',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    theme_color: expect.stringMatching(/^#/),
    background_color: expect.stringMatching(/^#/),
  });
  const apple = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
  const icons = [
    ...manifest.icons.map((i) => ({ src: i.src, size: Number(i.sizes.split('x')[0]) })),
    { src: apple!, size: 180 },
  ];
  expect(manifest.icons.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual([
    '192x192 any',
    '192x192 maskable',
    '512x512 any',
    '512x512 maskable',
  ]);
  for (const icon of icons) {
    const response = await request.get(icon.src);
    expect(response.headers()['content-type']).toBe('image/png');
    const png = await response.body();
    // IHDR: width and height at bytes 16..24 of a PNG.
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([icon.size, icon.size]);
  }
  await expect(page.locator('meta[name="apple-mobile-web-app-capable"]')).toHaveAttribute(
    'content',
    'yes',
  );
});

test('First visit: the worker takes control without reloading the page', async ({ page }) => {
  await page.goto('/');
  await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
  await waitForController(page);
  expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
});

test('Offline: the installed shell and deep links reload from the service worker', async ({
  page,
  context,
}) => {
  await page.goto('/');
  await waitForController(page);
  await context.setOffline(true);
  try {
    const reloaded = await page.reload();
    expect(reloaded?.fromServiceWorker()).toBe(true);
    await expectAppRendered(page);
    // A path the server never saw is answered by the navigation fallback (the app routes it).
    const unknownPath = await page.goto('/some/deep/link');
    expect(unknownPath?.fromServiceWorker()).toBe(true);
    await expectAppRendered(page);
    // A notification's card link (a new document, since the path differs).
    const deep = await page.goto('/#/m/room-0000001/s/s1');
    expect(deep?.fromServiceWorker()).toBe(true);
    await expectAppRendered(page);
  } finally {
    await context.setOffline(false);
  }
});

test('Update prompt: a waiting worker shows "New version", nothing reloads until Reload is tapped', async ({
  page,
}) => {
  const copy = await serveDistCopy();
  try {
    await page.goto(`${copy.origin}/`);
    await waitForController(page);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));
    const firstWorker = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.ready;
      return r.active?.scriptURL;
    });
    // Deploy a new version: any byte change of sw.js makes the browser install it.
    appendFileSync(path.join(copy.dir, 'sw.js'), '\n// next version\n');
    await page.evaluate(async () => (await navigator.serviceWorker.ready).update());
    const prompt = page.getByRole('status').filter({ hasText: 'New version available.' });
    await expect(prompt).toBeVisible();
    // Waiting, not applied: same page, same controller.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7);
    expect(await page.evaluate(async () => !!(await navigator.serviceWorker.ready).waiting)).toBe(
      true,
    );
    const reloaded = page.waitForEvent('load');
    await prompt.getByRole('button', { name: 'Reload' }).click();
    await reloaded;
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(
      undefined,
    );
    await waitForController(page);
    const after = await page.evaluate(async () => {
      const r = await navigator.serviceWorker.ready;
      return { waiting: !!r.waiting, script: r.active?.scriptURL };
    });
    expect(after).toEqual({ waiting: false, script: firstWorker });
    await expect(prompt).toHaveCount(0);
  } finally {
    await copy.close();
  }
});
