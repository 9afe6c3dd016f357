import { defineConfig, devices } from '@playwright/test';
import { DISABLE_FEATURES_ARG } from './e2e/support/chromium-features.ts';

// Playwright cannot download a browser here; Debian's Chromium is used instead.
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  DISABLE_FEATURES_ARG,
];
// E2E_PORT lets two checkouts run their e2e suites side by side; the app's origin is always 127.0.0.1.
export const APP_PORT = Number(process.env.E2E_PORT ?? 4173);
export const APP_ORIGIN = `http://127.0.0.1:${APP_PORT}`;

export default defineConfig({
  testDir: 'e2e',
  globalSetup: './e2e/support/global-setup.ts',
  testMatch: '**/*.spec.ts',
  // Two workers: the suite is CPU-bound on 2 cores, yet two files side by side still finish sooner
  // than one at a time (350 s against 431 s, docs/quality.md "The test run"). The tests that once failed only so were races in the tests,
  // fixed at the root (docs/app.md "Tests"). E2E_WORKERS=1 runs one.
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  forbidOnly: true,
  timeout: 60_000,
  reporter: [['list']],
  use: {
    ...devices['Pixel 7'],
    browserName: 'chromium',
    baseURL: APP_ORIGIN,
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    },
  },
  webServer: {
    command: `npx vite preview --host 127.0.0.1 --port ${APP_PORT} --strictPort`,
    url: APP_ORIGIN,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
