/// <reference lib="dom" />
// SC1 benchmark (docs/quality.md "The session timeline"): a 2,000-entry session against a
// 100-entry one measured in the same run — the time from opening the session (an in-app route
// change, the entries already held) to the newest entry painted, and the frame gaps while
// scrolling from the newest entry to the start. Run: `npx vite build && CI=true E2E_PORT=<port>
// npx playwright test -c playwright.extra.config.ts e2e/timeline.bench.ts`; prints one JSON line.
import type { Page } from '@playwright/test';
import { expect, pairByCode, test } from './support/fixtures.ts';
import { nav } from './support/nav.ts';
import { makeTestMachine, type TestMachine } from './support/test-machine.ts';

const RUNS = 5;
const PAGE = 50;
const T0 = Date.now() - 24 * 3600_000;
const entry = (seq: number) => ({
  seq,
  role: seq % 10 === 1 ? 'user' : 'assistant',
  text:
    seq % 10 === 1
      ? `Please look at item ${seq} and tell me what changed.`
      : `Item ${seq}: **two** lines of the agent's text,\nwith \`code\` and a [link](https://example.com/${seq}).`,
  ts: T0 + seq * 1000,
});

function serve(machine: TestMachine, totals: Record<string, number>) {
  const answered = new Set<string>();
  const tick = setInterval(() => {
    for (const m of machine.received) {
      if (m.type !== 'transcript.get' || answered.has(m.requestId)) continue;
      answered.add(m.requestId);
      const hi = (m.before ?? totals[m.sessionId]! + 1) - 1;
      const lo = Math.max(1, hi - PAGE + 1);
      const entries = Array.from({ length: hi - lo + 1 }, (_, i) => entry(lo + i));
      machine.say({
        type: 'transcript',
        requestId: m.requestId,
        sessionId: m.sessionId,
        entries,
        more: lo > 1,
      });
    }
  }, 10);
  return () => clearInterval(tick);
}

const session = (id: string) => ({
  sessionId: id,
  title: `Session ${id}`,
  cwd: '/work/repo',
  state: 'idle',
  lastActivity: T0,
  dispatched: true,
  live: true,
});

/** Taps "Load older" until the start of the conversation is held and shown. */
async function loadAll(page: Page) {
  const start = page.getByText('Start of the conversation.');
  for (let i = 0; i < 120 && (await start.count()) === 0; i++) {
    const before = await page.locator('.tl-item').count();
    await page.getByRole('button', { name: 'Load older' }).click();
    await expect
      .poll(
        async () => (await start.count()) > 0 || (await page.locator('.tl-item').count()) > before,
        { timeout: 60_000 },
      )
      .toBe(true);
  }
}

async function openTime(page: Page, hash: string, lastKey: string) {
  await nav(page, '#/');
  await expect(page.locator('.tl-item')).toHaveCount(0);
  return page.evaluate(
    ([h, key]) =>
      new Promise<number>((resolve) => {
        const t = performance.now();
        location.hash = h!;
        const check = () => {
          if (document.querySelector(`.tl-item[data-key="${key}"]`))
            requestAnimationFrame(() => resolve(performance.now() - t));
          else requestAnimationFrame(check);
        };
        check();
      }),
    [hash, lastKey],
  );
}

async function scrollFrames(page: Page) {
  return page.evaluate(
    () =>
      new Promise<{ frames: number; meanMs: number; p95Ms: number }>((resolve) => {
        const gaps: number[] = [];
        let last = performance.now();
        const step = () => {
          const now = performance.now();
          gaps.push(now - last);
          last = now;
          if (scrollY <= 0 || gaps.length > 2000) {
            gaps.sort((a, b) => a - b);
            resolve({
              frames: gaps.length,
              meanMs: gaps.reduce((a, b) => a + b, 0) / gaps.length,
              p95Ms: gaps[Math.floor(gaps.length * 0.95)]!,
            });
            return;
          }
          scrollBy(0, -600);
          requestAnimationFrame(step);
        };
        scrollTo(0, document.documentElement.scrollHeight);
        requestAnimationFrame(step);
      }),
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

test('SC1 bench: open and scroll a 2,000-entry session against a 100-entry one', async ({
  page,
  relay,
}) => {
  test.setTimeout(10 * 60_000);
  const machine = makeTestMachine(relay.url, 'laptop');
  await machine.connect();
  const stop = serve(machine, { big: 2000, small: 100 });
  try {
    await pairByCode(page, machine.code, 'laptop');
    machine.say({ type: 'machine.status', machine: 'laptop', pluginVersion: '1.2.0' });
    machine.say({ type: 'session.snapshot', sessions: [session('big'), session('small')] });
    const hash = (id: string) => `#/m/${machine.roomId}/s/${id}`;
    for (const id of ['big', 'small']) {
      await nav(page, hash(id));
      await expect(
        page.locator(`.tl-item[data-key="e${id === 'big' ? 2000 : 100}"]`),
      ).toBeAttached();
      await loadAll(page);
    }
    const result: Record<string, { openMs: number; scrollMeanMs: number; scrollP95Ms: number }> =
      {};
    for (const [id, last] of [
      ['small', 'e100'],
      ['big', 'e2000'],
    ] as const) {
      const open: number[] = [];
      const mean: number[] = [];
      const p95: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        open.push(await openTime(page, hash(id), last));
        const s = await scrollFrames(page);
        mean.push(s.meanMs);
        p95.push(s.p95Ms);
      }
      result[id] = { openMs: median(open), scrollMeanMs: median(mean), scrollP95Ms: median(p95) };
    }
    const shownAtOpen = await page.locator('.tl-item').count();
    console.log(
      JSON.stringify({
        at: new Date().toISOString(),
        shownAtOpen,
        ...result,
        openRatio: result.big!.openMs / result.small!.openMs,
        scrollMeanRatio: result.big!.scrollMeanMs / result.small!.scrollMeanMs,
      }),
    );
  } finally {
    stop();
    await machine.close();
  }
});
