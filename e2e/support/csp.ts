/// <reference lib="dom" />
// P2: collects every content-policy violation a page reports, across navigations: the
// `securitypolicyviolation` event (through a binding the policy cannot block) and the console's
// "Refused to …" reports.
import type { Page } from '@playwright/test';

export type CspWatch = { violations(): string[] };

const BINDING = '__dshCspViolation';

export async function watchCsp(page: Page): Promise<CspWatch> {
  const seen: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) seen.push(`console: ${m.text()}`);
  });
  await page.exposeBinding(BINDING, (_source, line: string) => void seen.push(line));
  await page.addInitScript((binding) => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (globalThis as unknown as Record<string, (s: string) => void>)[binding];
      report?.(
        `${e.effectiveDirective} blocked ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}`,
      );
    });
  }, BINDING);
  return { violations: () => [...seen] };
}
