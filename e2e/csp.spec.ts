// P2: a strict content policy everywhere the app is served. Here: `vite preview` (what npm start
// and this suite serve). deploy/Caddyfile's production policy is proven over real TLS in
// e2e/tls.spec.ts.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.ts';
import { LOOPBACK_CSP, META_CSP, OTHER_HEADERS } from '../scripts/security-headers.ts';
import { watchCsp } from './support/csp.ts';
import { expect, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { parseTerminalQr, writeQrVideo } from './support/qr-video.ts';

const CAMERA_VIDEO = join(tmpdir(), `dsh-e2e-csp-camera-${process.pid}.y4m`);
test.use({
  launchOptions: {
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${CAMERA_VIDEO}`,
    ],
  },
  permissions: ['camera'],
});
test.afterAll(() => rmSync(CAMERA_VIDEO, { force: true }));

test('P2: the policy and the other headers on /, a deep link, the service worker and an asset; no source maps', async ({
  page,
  request,
}) => {
  const deep = await page.goto('/#/settings');
  const html = await (await request.get('/')).text();
  const asset = /<script type="module" crossorigin src="([^"]+)"/.exec(html)?.[1];
  expect(asset).toMatch(/^\/assets\/index-[\w-]+\.js$/);
  const responses = {
    '/': await request.get('/'),
    'a deep link': deep!,
    '/sw.js': await request.get('/sw.js'),
    [asset!]: await request.get(asset!),
  };
  for (const [what, res] of Object.entries(responses)) {
    expect(res.status(), what).toBe(200);
    const h = res.headers();
    expect(h['content-security-policy'], what).toBe(LOOPBACK_CSP);
    for (const [name, value] of Object.entries(OTHER_HEADERS))
      expect(h[name.toLowerCase()], `${what}: ${name}`).toBe(value);
  }
  // The meta policy, first in <head>, for hosts that cannot send headers.
  expect(html).toMatch(
    /^<!doctype html>\s*<html lang="en">\s*<head>\s*<meta http-equiv="Content-Security-Policy"/,
  );
  const meta = await page
    .locator('meta[http-equiv="Content-Security-Policy"]')
    .getAttribute('content');
  expect(meta).toBe(META_CSP);
  // No source maps are built, and none is referenced.
  expect((await request.get(`${asset}.map`)).headers()['content-type']).not.toMatch(/json/);
  expect(await (await request.get(asset!)).text()).not.toContain('sourceMappingURL');
  expect(await (await request.get('/sw.js')).text()).not.toContain('sourceMappingURL');
});

test('P2: every screen and the QR scanner open with zero content-policy violations; an inline script is blocked and seen', async ({
  page,
  machine,
}) => {
  const csp = await watchCsp(page);
  const m = await machine('laptop');
  writeQrVideo(CAMERA_VIDEO, parseTerminalQr(m.proc.lines, 'dark'));
  // The html5-qrcode fallback (Linux Chromium has no BarcodeDetector; make sure of it).
  await page.addInitScript(() => {
    delete (globalThis as { BarcodeDetector?: unknown }).BarcodeDetector;
  });

  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await page.goto('/#/pair');
  await page.getByRole('button', { name: 'Scan QR code' }).click();
  // The scanner ran on the camera and read the code: the confirm screen.
  await expect(page.getByText('Machine: laptop')).toBeVisible({ timeout: 20_000 });
  await page.getByRole('button', { name: 'Pair', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'laptop' })).toBeVisible();
  await nav(page, '#/settings');
  await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
  await nav(page, '#/new');
  await page.getByLabel('Prompt').fill('write: notes.txt\nhello\nrun: echo ran\nsay: done');
  await page.getByRole('button', { name: 'Start session' }).click();
  await page.getByRole('button', { name: /^Allow: Write/ }).dblclick();
  await page.getByRole('button', { name: 'Allow: Run a command' }).dblclick();
  await expect(page.getByText('Turn summary')).toBeVisible();
  await nav(page, new URL(page.url()).hash.replace(/\/s\/.*$/, '')); // the machine screen
  await expect(page.getByRole('heading', { level: 1, name: 'laptop' })).toBeVisible();
  await nav(page, '#/');
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  expect(csp.violations()).toEqual([]);

  // The watcher sees what the policy blocks: an inline script. (eval cannot be tried from
  // here: DevTools' own evaluation is exempt; the exact header above carries no 'unsafe-eval'.)
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'document.title = "inline ran"';
    document.body.append(s);
  });
  // One report per policy that forbids it: the header's and the meta tag's.
  await expect
    .poll(() => csp.violations().filter((v) => !v.startsWith('console')).length)
    .toBeGreaterThan(0);
  for (const v of csp.violations().filter((x) => !x.startsWith('console')))
    expect(v).toMatch(/^script-src-elem blocked inline at /);
  expect(await page.title()).not.toBe('inline ran');
});
