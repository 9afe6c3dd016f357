// Chromium features the e2e browser runs without. Chromium keeps only the last
// `--disable-features` it is given, and Playwright passes its own list first, so ours must repeat
// Playwright's (scripts/chromium-features.test.ts fails when an upgrade of Playwright changes it).

/** Playwright 1.65's own list (playwright-core `chromiumSwitches`), kept as it is. */
export const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
] as const;

/**
 * Ours: every new browser context opens a window, and Chromium 156 preloads two hidden WebUI pages
 * for that window's address bar (chrome://omnibox-popup.top-chrome/ and its AI-mode page), each in
 * a renderer of its own. Headless tests never show an address bar; those renderers used about a
 * sixth of the suite's CPU (docs/quality.md "The test run").
 */
export const OWN_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'] as const;

export const DISABLE_FEATURES_ARG = `--disable-features=${[
  ...PLAYWRIGHT_DISABLED_FEATURES,
  ...OWN_DISABLED_FEATURES,
].join(',')}`;
