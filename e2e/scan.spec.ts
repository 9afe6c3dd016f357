import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.ts';
import { expect, expectAccessible, test } from './support/fixtures.ts';
import { parseTerminalQr, writeQrVideo } from './support/qr-video.ts';

// Chromium's fake camera plays this file; it opens it when a page asks for the camera, so each
// test writes the machine's QR code here before pressing "Scan".
const CAMERA_VIDEO = join(tmpdir(), `dsh-e2e-camera-${process.pid}.y4m`);

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

type Track = { readyState: string };
// Every camera track the page opens (kept themselves, not their stream), so a test can prove the
// camera is released afterwards.
const recordTracks = () => {
  const w = globalThis as unknown as {
    navigator: { mediaDevices: { getUserMedia: (c: unknown) => Promise<unknown> } };
    __tracks: Track[];
  };
  w.__tracks = [];
  const original = w.navigator.mediaDevices.getUserMedia.bind(w.navigator.mediaDevices);
  w.navigator.mediaDevices.getUserMedia = async (c) => {
    const stream = (await original(c)) as { getTracks(): Track[] };
    w.__tracks.push(...stream.getTracks());
    return stream;
  };
};

const cameraTracks = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { __tracks: Track[] }).__tracks.map((t) => t.readyState),
  );

test.describe('QR scanning (A1)', () => {
  const terminals = [
    { theme: 'light', env: { FORCE_COLOR: '1' }, how: 'colours pinned' },
    { theme: 'dark', env: {}, how: 'plain output' },
  ] as const;
  for (const { theme, env, how } of terminals) {
    test(`pairs by scanning the QR code the machine prints on a ${theme} terminal (${how}), then releases the camera`, async ({
      page,
      machine,
    }) => {
      const m = await machine('laptop', { env });
      writeQrVideo(CAMERA_VIDEO, parseTerminalQr(m.proc.lines, theme));
      // Linux Chromium has no BarcodeDetector today; removing it keeps this test on the jsQR
      // path (src/ui/qr-frames.ts) even where a later build adds one.
      await page.addInitScript(() => {
        delete (globalThis as { BarcodeDetector?: unknown }).BarcodeDetector;
      });
      await page.addInitScript(recordTracks);
      await page.goto('/#/pair');
      await page.getByRole('button', { name: 'Scan QR code' }).click();
      await expect(page.getByText('Machine: laptop')).toBeVisible({ timeout: 20_000 });
      await expectAccessible(page, 'pair confirm after a scan');
      await expect.poll(() => cameraTracks(page)).toEqual(['ended']);
      await page.getByRole('button', { name: 'Pair', exact: true }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'laptop' })).toBeVisible();
      await expect(page.getByText('Machine online')).toBeVisible();
    });
  }

  test('uses the native BarcodeDetector where the browser has one, on the live camera video', async ({
    page,
    machine,
  }) => {
    const m = await machine('desk');
    writeQrVideo(CAMERA_VIDEO, parseTerminalQr(m.proc.lines, 'dark'));
    // Linux Chromium ships no BarcodeDetector, so a stand-in with its API answers with the code
    // the test hands it — but only for a playing <video> whose frames come from the camera.
    await page.addInitScript(() => {
      const w = globalThis as unknown as Record<string, unknown>;
      w.__detect = { formats: [] as string[], frames: 0, code: '' };
      const state = w.__detect as { formats: string[]; frames: number; code: string };
      w.BarcodeDetector = class {
        constructor(options: { formats: string[] }) {
          state.formats = options.formats;
        }
        detect(source: { videoWidth?: number; readyState?: number; srcObject?: unknown }) {
          const live = (source.videoWidth ?? 0) > 0 && source.srcObject != null;
          if (live) state.frames++;
          return Promise.resolve(live && state.code ? [{ rawValue: state.code }] : []);
        }
      };
    });
    await page.addInitScript(recordTracks);
    await page.goto('/#/pair');
    await page.getByRole('button', { name: 'Scan QR code' }).click();
    await expect(page.getByText('Point the camera at the QR code.')).toBeVisible();
    const detect = () =>
      page.evaluate(
        () =>
          (globalThis as unknown as { __detect: { formats: string[]; frames: number } }).__detect,
      );
    await expect.poll(async () => (await detect()).frames).toBeGreaterThan(0);
    expect((await detect()).formats).toEqual(['qr_code']);
    await page.evaluate((code) => {
      (globalThis as unknown as { __detect: { code: string } }).__detect.code = code;
    }, m.pairingCode);
    await expect(page.getByText('Machine: desk')).toBeVisible();
    await expect.poll(() => cameraTracks(page)).toEqual(['ended']);
  });
});
