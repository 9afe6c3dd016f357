/// <reference lib="dom" />
// P3: the whole path over real TLS, end to end, on a true secure non-localhost origin:
// https://dsh.test:<port> served by a real Caddy with deploy/Caddyfile (local CA), the relay
// behind it at /relay, the mock machine dialing wss://dsh.test:<port>/relay and trusting Caddy's
// root, Chromium trusting its intermediate by key. The phone pairs by link, approves, and gets a
// sealed push as a notification; the Caddyfile's headers and caching are read off the wire.
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, devices, expect, test, type BrowserContext } from '@playwright/test';
import { parsePairing, roomKeys } from '../protocol/index.ts';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.ts';
import {
  makeFakeSubscriber,
  startFakePushService,
  type FakePushService,
} from '../testkit/push-service.ts';
import {
  OTHER_HEADERS,
  PRODUCTION_CSP,
  STRICT_TRANSPORT_SECURITY,
} from '../scripts/security-headers.ts';
import { watchCsp } from './support/csp.ts';
import { ALLOW_RUN, nav } from './support/nav.ts';
import { parseTerminalQr, writeQrVideo } from './support/qr-video.ts';
import { startMachine, tempDir, type MockMachine } from './support/processes.ts';
import { joinRoom } from './support/room-socket.ts';
import { pushDelivery, shownNotifications, waitForController } from './support/sw.ts';
import { startTlsSite, type TlsSite } from './support/tls-site.ts';

// Chromium's fake camera plays the machine's printed QR code from this file.
const CAMERA_VIDEO = join(tmpdir(), `dsh-e2e-tls-camera-${process.pid}.y4m`);
let site: TlsSite | undefined;
let pushService: FakePushService | undefined;
let machine: MockMachine | undefined;
let browser: BrowserContext | undefined;
let profile: ReturnType<typeof tempDir> | undefined;
test.afterAll(async () => {
  await browser?.close();
  profile?.remove();
  await machine?.stop();
  await site?.close();
  await pushService?.close();
  rmSync(CAMERA_VIDEO, { force: true });
});

test('P3: over real TLS on https://dsh.test — worker controls the page, installable, pairing by link with a wss:// relay, an approval round trip, a sealed push shown as a notification; P2: the production headers, every screen and the QR scanner with zero policy violations', async () => {
  test.setTimeout(150_000);
  pushService = await startFakePushService();
  site = await startTlsSite([
    ...['--vapid-subject', 'mailto:e2e@example.invalid', '--metrics'],
    ...['--unsafe-allow-push-origin', pushService.origin],
  ]);
  const s = site;

  await test.step('the Caddyfile: production policy and headers everywhere, PWA caching, /relay proxied, its metrics private', async () => {
    const index = await s.get('/');
    const asset = /<script type="module" crossorigin src="([^"]+)"/.exec(index.body)?.[1];
    expect(asset).toMatch(/^\/assets\//);
    const seen = {
      '/': index,
      'a deep link (no server route: index.html)': await s.get('/m/room/s/session'),
      '/sw.js': await s.get('/sw.js'),
      [asset!]: await s.get(asset!),
    };
    for (const [what, r] of Object.entries(seen)) {
      expect(r.status, what).toBe(200);
      expect(r.headers['content-security-policy'], what).toBe(PRODUCTION_CSP);
      for (const [name, value] of Object.entries(OTHER_HEADERS))
        expect(r.headers[name.toLowerCase()], `${what}: ${name}`).toBe(value);
      // F5: the deployed site (a real domain's Caddyfile) pins https.
      expect(r.headers['strict-transport-security'], what).toBe(STRICT_TRANSPORT_SECURITY);
    }
    expect(seen['/'].headers['cache-control']).toBe('no-cache');
    expect(seen['/sw.js'].headers['cache-control']).toBe('no-cache');
    expect(seen[asset!]!.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(await s.get('/relay/healthz')).toMatchObject({ status: 200, body: '{"ok":true}' });
    expect((await s.get('/relay/vapid')).body).toMatch(/^\{"publicKey":"[\w-]{87}"\}$/);
    expect((await s.get('/relay/metrics')).status).toBe(404);
  });

  machine = await startMachine({
    relay: s.relayUrl,
    name: 'laptop',
    appUrl: s.origin,
    env: s.nodeEnv,
  });
  const m = machine;
  await m.proc.waitForLine(new RegExp(`relay-connected.*${s.relayUrl.replace(/[.]/g, '\\.')}`));
  const pairing = parsePairing(m.pairingCode);
  if (!pairing.ok) throw new Error(pairing.message);
  expect(pairing.value.relay).toBe(s.relayUrl);
  const { roomId, key } = roomKeys(pairing.value.secretBytes);

  // A persistent profile: Chromium reports any other context as incognito, where an app cannot
  // be installed.
  profile = tempDir('tls-profile');
  const context = await chromium.launchPersistentContext(profile.path, {
    ...devices['Pixel 7'],
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      ...s.browserArgs,
      '--use-fake-ui-for-media-stream',
      '--use-fake-device-for-media-stream',
      `--use-file-for-fake-video-capture=${CAMERA_VIDEO}`,
    ],
    permissions: ['camera'],
  });
  browser = context;
  await context.grantPermissions(['notifications'], { origin: s.origin });
  const page = context.pages()[0] ?? (await context.newPage());
  const csp = await watchCsp(page);
  writeQrVideo(CAMERA_VIDEO, parseTerminalQr(m.proc.lines, 'dark'));
  // The jsQR path (Linux Chromium has no BarcodeDetector; make sure of it).
  await page.addInitScript(() => {
    delete (globalThis as { BarcodeDetector?: unknown }).BarcodeDetector;
  });

  await test.step('a secure non-localhost origin whose worker controls the page; installable', async () => {
    await page.goto(`${s.origin}/`);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible(); // the Inbox
    expect(await page.evaluate(() => [window.isSecureContext, location.origin])).toEqual([
      true,
      s.origin,
    ]);
    await waitForController(page);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
    await cdp.detach();
  });

  await test.step('the QR scanner reads the machine’s code from the camera; pairing by link with the wss:// relay; an approval round trip', async () => {
    await nav(page, '#/pair');
    await page.getByRole('button', { name: 'Scan QR code' }).click();
    await expect(page.getByText('Machine: laptop')).toBeVisible({ timeout: 20_000 });
    // The same code, this time by link, the way a phone's camera app opens it.
    await page.goto(`${s.origin}/#pair=${m.pairingCode}`);
    await expect(page.getByText('Machine: laptop')).toBeVisible();
    await page.getByRole('button', { name: 'Pair', exact: true }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'laptop' })).toBeVisible();
    await expect(page.getByText('Machine online')).toBeVisible();
    await nav(page, '#/new');
    await page.getByLabel('Prompt').fill('run: echo over-tls\nsay: done');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.getByRole('button', { name: ALLOW_RUN }).dblclick();
    await expect(page.getByText('Turn summary')).toBeVisible();
    await m.proc.waitForLine(/approval \S+ closed: allow/);
    await nav(page, '#/');
    // SC5: the session's row names its machine too; this is the machine's row.
    await expect(
      page
        .locator('section[aria-labelledby="inbox-machines"]')
        .getByRole('link', { name: /laptop/ }),
    ).toBeVisible();
  });

  await test.step('notifications: the app reaches /relay/vapid on its own origin; a subscription is sent over wss and a sealed push becomes a notification', async () => {
    await nav(page, '#/settings');
    const section = page.locator('.notifications-settings');
    await section.getByRole('button', { name: 'Turn on notifications' }).click();
    // Past permission and the relay's key (else vapid-unreachable): the browser's own subscribe
    // then succeeds or fails depending on its push service, which is not reachable here.
    await expect(
      section
        .getByText('Notifications are on for this device.')
        .or(section.locator('[role="alert"][data-code="subscribe-failed"]')),
    ).toBeVisible();

    const delivery = await pushDelivery(context, page, s.origin);
    const subscriber = makeFakeSubscriber(pushService!.endpoint('phone-tls'));
    const spy = await joinRoom(s.relayUrl, roomId, 'machine', key, s.wsOptions);
    // The fabricated subscription goes to the relay from a second socket (a relay frame, not a
    // message to the machine); the work is dispatched from the app, since under E9 the machine
    // acts only on the approved phone's sealed actions.
    const phone = await joinRoom(s.relayUrl, roomId, 'phone', key, s.wsOptions);
    phone.send({ kind: 'push-subscribe', room: roomId, subscription: subscriber.subscription });
    await nav(page, '#/new');
    await page.getByLabel('Prompt').fill('ask: Go on? | yes | no\nrun: echo pushed');
    await page.getByRole('button', { name: 'Start session' }).click();
    const asked = await m.proc.waitForLine(/▶ question (\S+)/);
    // The app opens the new session once its dispatch.result arrives: wait for that, then leave
    // it (N3: a window showing this very session would skip the notification).
    await expect(page.getByRole('heading', { level: 3, name: 'Go on?' })).toBeVisible();
    await nav(page, '#/settings');
    await expect(page.getByRole('heading', { level: 1, name: 'Settings' })).toBeVisible();
    await phone.close();
    // The app goes to the background: its socket closes and the relay says no phone is left.
    const before = spy.frames.length;
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', {
        configurable: true,
        get: () => 'hidden',
      });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await spy.waitForFrame(
      (f) =>
        spy.frames.indexOf(f) >= before && f.kind === 'presence' && f.role === 'phone' && !f.online,
    );
    m.proc.write(`answer ${asked[1]} yes`);
    const sent = await pushService!.nextRequest();
    expect(sent.body.toString('latin1')).not.toContain('echo pushed');
    await delivery.deliver(subscriber.decrypt(sent.body).toString('utf8'));
    await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
    expect((await shownNotifications(page))[0]).toMatchObject({
      title: 'Approval needed · laptop',
    });
    await spy.close();
    await delivery.close();
  });

  expect(csp.violations()).toEqual([]);
});
