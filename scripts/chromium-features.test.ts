import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OWN_DISABLED_FEATURES,
  PLAYWRIGHT_DISABLED_FEATURES,
} from '../e2e/support/chromium-features.ts';

// The e2e browser's `--disable-features` replaces Playwright's own (Chromium keeps the last one),
// so it must carry Playwright's whole list: read it from the installed playwright-core.
function installedPlaywrightList(): string[] {
  const require = createRequire(import.meta.url);
  const core = path.dirname(require.resolve('playwright-core/package.json'));
  const bundle = readFileSync(path.join(core, 'lib', 'coreBundle.js'), 'utf8');
  const found = /disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/.exec(bundle);
  if (!found) throw new Error('playwright-core no longer spells its disabled features list so');
  return [...found[1]!.replace(/\/\/.*$/gm, '').matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
}

describe('the e2e Chromium flags', () => {
  it("keeps every feature Playwright disables, and adds only the address bar's hidden WebUI pages", () => {
    expect([...PLAYWRIGHT_DISABLED_FEATURES]).toEqual(installedPlaywrightList());
    expect([...OWN_DISABLED_FEATURES]).toEqual(['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']);
  });
});
