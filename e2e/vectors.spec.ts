import { test, expect, type Page } from '@playwright/test';
import { build } from 'esbuild';
import path from 'node:path';
import url from 'node:url';

// The known-answer vectors must hold in the browser too (V1): the same runner vitest
// uses is bundled for the page and for a service worker, where tweetnacl's CSPRNG comes from
// self.crypto.getRandomValues instead of Node's crypto.
// The runner is injected as an inline script; should the app ever ship a strict CSP, that must
// not turn this check off.
test.use({ bypassCSP: true });

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');

async function bundle(): Promise<string> {
  const out = await build({
    entryPoints: [path.join(root, 'protocol/test-support/browser-entry.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return out.outputFiles[0]!.text;
}

type Check = { group: string; name: string; problem: string | null };
type Report = { checks: Check[]; randomness: Record<string, unknown>; digests: Check[] };

function expectAllPass(report: Report): void {
  expect(report.checks.length).toBeGreaterThan(30);
  expect(report.checks.filter((c) => c.problem !== null)).toEqual([]);
  // E7: this context's WebCrypto SHA-256 gives the pinned challenge of every decision text.
  expect(report.digests.length).toBeGreaterThanOrEqual(5);
  expect(report.digests.filter((c) => c.problem !== null)).toEqual([]);
  expect(report.randomness).toEqual({
    secretLength: 32,
    secretsDiffer: true,
    payloadsDiffer: true,
    roundTrip: true,
  });
}

const collectErrors = (page: Page) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
};

test('known-answer vectors pass byte for byte in the page', async ({ page }) => {
  const errors = collectErrors(page);
  await page.goto('/');
  await page.addScriptTag({ content: await bundle() });
  const report = await page.evaluate(async () => {
    const v = (
      globalThis as unknown as Record<
        string,
        { checkVectors(): unknown; randomness(): unknown; presenceDigests(): Promise<unknown> }
      >
    ).__protocolVectors!;
    return {
      checks: v.checkVectors(),
      randomness: v.randomness(),
      digests: await v.presenceDigests(),
    } as Report;
  });
  expectAllPass(report);
  expect(errors).toEqual([]);
});

test('known-answer vectors and the CSPRNG work inside a service worker', async ({
  page,
  context,
  baseURL,
}) => {
  const swPath = '/__protocol-vectors-sw.js';
  const worker = `${await bundle()}
self.addEventListener('message', (event) => {
  const v = globalThis.__protocolVectors;
  event.waitUntil(
    v.presenceDigests().then((digests) =>
      event.ports[0].postMessage({ checks: v.checkVectors(), randomness: v.randomness(), digests }),
    ),
  );
});`;
  await context.route(`${baseURL}${swPath}`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/javascript', body: worker }),
  );
  await page.goto('/');
  // Runs in the page; written as source because e2e/ compiles without the DOM lib.
  const report = (await page.evaluate(`(async () => {
    const reg = await navigator.serviceWorker.register('${swPath}', { scope: '/__protocol-vectors/' });
    const sw = reg.installing ?? reg.waiting ?? reg.active;
    if (sw.state !== 'activated') {
      await new Promise((resolve) =>
        sw.addEventListener('statechange', () => sw.state === 'activated' && resolve()),
      );
    }
    const channel = new MessageChannel();
    const reply = new Promise((resolve) => (channel.port1.onmessage = (e) => resolve(e.data)));
    sw.postMessage('run', [channel.port2]);
    const data = await reply;
    await reg.unregister();
    return data;
  })()`)) as Report;
  expectAllPass(report);
});
