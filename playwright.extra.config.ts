import { defineConfig } from '@playwright/test';
import base from './playwright.config.ts';

// Runs outside `npm test`: `npm run screenshots` (e2e/*.shots.ts) and the tap measurement of
// `npm run bench:app` (e2e/*.bench.ts). Same browser, viewport and app server as the suite.
export default defineConfig({
  ...base,
  testMatch: ['**/*.shots.ts', '**/*.bench.ts'],
  timeout: 20 * 60_000,
  reporter: [['line']],
});
