// `npm run bench:app [-- --runs 3 --story-runs 3 --tap-runs 20]` (docs/quality.md): Lighthouse
// 12.2.3 (mobile profile, Debian's Chromium) against the built app — its scores and its simulated
// cold-start timings (FCP, LCP, TTI, TBT) —, the initial JS size (gzip,
// from Vite's manifest), the two latencies of the whole-story e2e (approval.request → card
// visible, push → notification), each the median of its runs, and the notification tap → enabled
// Allow time with the app not running (e2e/tap-to-allow.bench.ts), median and p95. A count of 0
// skips that part. Loopback only; every loop is bounded.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from '../testkit/ports.ts';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';

const REPO = path.resolve(import.meta.dirname, '..');
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CATEGORIES = ['performance', 'accessibility', 'best-practices'] as const;
/** Lighthouse's simulated timings of the cold start on its throttled mobile profile (ms). */
const TIMINGS = {
  'first-contentful-paint': 'first paint (FCP)',
  'largest-contentful-paint': 'largest paint (LCP)',
  interactive: 'interactive (TTI)',
  'total-blocking-time': 'blocking (TBT)',
} as const;
const MAX_RUNS = 10;
const MAX_TAP_RUNS = 100;
const SERVER_TIMEOUT_MS = 30_000;
const STORY_TIMEOUT_MS = 10 * 60_000;
const LATENCIES_FILE = path.join(REPO, 'test-results/whole-story-latencies.jsonl');
const TAP_FILE = path.join(REPO, 'test-results/tap-to-allow.jsonl');
const TAP_TIMEOUT_MS = 30 * 60_000;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'story-runs': { type: 'string', default: '3' },
    'tap-runs': { type: 'string', default: '20' },
  },
});
const runs = Math.min(MAX_RUNS, Math.max(0, Number(values.runs)));
const storyRuns = Math.min(MAX_RUNS, Math.max(0, Number(values['story-runs'])));
const tapRuns = Math.min(MAX_TAP_RUNS, Math.max(0, Number(values['tap-runs'])));

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.floor((s.length - 1) / 2)]!;
};
/** Nearest-rank percentile: the smallest value with at least p % of the runs at or below it. */
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
};

type ManifestChunk = { file: string; isEntry?: boolean; imports?: string[] };

/** The entry chunks and their static imports: what a first visit loads. */
function initialJsGzipBytes(): { bytes: number; files: string[] } {
  const manifest = JSON.parse(
    readFileSync(path.join(REPO, 'dist/.vite/manifest.json'), 'utf8'),
  ) as Record<string, ManifestChunk>;
  const seen = new Set<string>();
  const files: string[] = [];
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key]!;
    if (chunk.file.endsWith('.js')) files.push(chunk.file);
    for (const dep of chunk.imports ?? []) visit(dep);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
  const bytes = files.reduce(
    (n, f) => n + gzipSync(readFileSync(path.join(REPO, 'dist', f)), { level: 9 }).length,
    0,
  );
  return { bytes, files };
}

async function serveDist(port: number): Promise<ChildProcess> {
  const child = spawn(
    path.join(REPO, 'node_modules/.bin/vite'),
    ['preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
    { cwd: REPO, detached: true, stdio: 'ignore' },
  );
  const end = Date.now() + SERVER_TIMEOUT_MS;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) return child;
    } catch {
      // not listening yet
    }
    if (Date.now() > end) throw new Error('vite preview did not answer');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const stopGroup = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    process.kill(-child.pid!, 'SIGTERM');
  });

async function lighthouseScores(url: string): Promise<Record<string, number>[]> {
  const results: Record<string, number>[] = [];
  for (let i = 0; i < runs; i++) {
    const chrome = await chromeLauncher.launch({
      chromePath: CHROMIUM_PATH,
      chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      // Default config = the mobile profile (Moto G Power emulation, simulated slow 4G).
      const r = await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: [...CATEGORIES],
      });
      const lhr = r!.lhr;
      results.push({
        ...Object.fromEntries(
          CATEGORIES.map((c) => [c, Math.round((lhr.categories[c]?.score ?? 0) * 100)]),
        ),
        ...Object.fromEntries(
          Object.keys(TIMINGS).map((a) => [a, Math.round(lhr.audits[a]?.numericValue ?? NaN)]),
        ),
      });
      const failed = Object.values(lhr.audits).filter(
        (a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === 'binary',
      );
      if (i === 0 && failed.length > 0) {
        console.log(`  audits not passed (run 1): ${failed.map((a) => a.id).join(', ')}`);
      }
    } finally {
      chrome.kill();
    }
  }
  return results;
}

function storyLatencies(): { approvalToCardMs: number[]; pushToNotificationMs: number[] } {
  const out = { approvalToCardMs: [] as number[], pushToNotificationMs: [] as number[] };
  if (storyRuns === 0) return out;
  const port = process.env.E2E_PORT ?? '4474';
  console.log(`whole-story e2e × ${storyRuns} (E2E_PORT=${port})…`);
  const r = spawnSync(
    path.join(REPO, 'node_modules/.bin/playwright'),
    ['test', 'e2e/whole-story.spec.ts', `--repeat-each=${storyRuns}`, '--reporter=line'],
    {
      cwd: REPO,
      env: { ...process.env, E2E_PORT: port },
      stdio: 'inherit',
      timeout: STORY_TIMEOUT_MS,
    },
  );
  if (r.status !== 0) throw new Error(`the whole-story e2e failed (exit ${r.status ?? r.signal})`);
  for (const line of readFileSync(LATENCIES_FILE, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const v = JSON.parse(line) as { approvalToCardMs: number; pushToNotificationMs: number };
    out.approvalToCardMs.push(v.approvalToCardMs);
    out.pushToNotificationMs.push(v.pushToNotificationMs);
  }
  return out;
}

type TapRun = Record<
  'tapToAllowMs' | 'navigationMs' | 'drawnMs' | 'socketMs' | 'socketOpenMs' | 'cardMs',
  number
>;

function tapToAllow(): TapRun[] {
  if (tapRuns === 0) return [];
  const port = process.env.E2E_PORT ?? '4474';
  console.log(`notification tap → Allow × ${tapRuns} (E2E_PORT=${port})…`);
  rmSync(TAP_FILE, { force: true });
  const r = spawnSync(
    path.join(REPO, 'node_modules/.bin/playwright'),
    ['test', '-c', 'playwright.extra.config.ts', 'e2e/tap-to-allow.bench.ts'],
    {
      cwd: REPO,
      env: { ...process.env, E2E_PORT: port, TAP_RUNS: String(tapRuns) },
      stdio: 'inherit',
      timeout: TAP_TIMEOUT_MS,
    },
  );
  if (r.status !== 0) throw new Error(`the tap benchmark failed (exit ${r.status ?? r.signal})`);
  return readFileSync(TAP_FILE, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TapRun);
}

if (!existsSync(path.join(REPO, 'dist/.vite/manifest.json'))) {
  const b = spawnSync(path.join(REPO, 'node_modules/.bin/vite'), ['build'], {
    cwd: REPO,
    stdio: 'inherit',
  });
  if (b.status !== 0) throw new Error('vite build failed');
}
const size = initialJsGzipBytes();
const port = await freePort();
const server = await serveDist(port);
let scores: Record<string, number>[];
try {
  scores = await lighthouseScores(`http://127.0.0.1:${port}/`);
} finally {
  await stopGroup(server);
}
const lat = storyLatencies();
const taps = tapToAllow();

const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
console.log(`\nbench:app — ${date}, Lighthouse 12.2.3 mobile, ${runs} run(s), median`);
for (const c of runs > 0 ? CATEGORIES : []) {
  console.log(
    `  ${c.padEnd(15)} ${median(scores.map((s) => s[c]!))}  (runs: ${scores.map((s) => s[c]).join(', ')})`,
  );
}
for (const [a, label] of runs > 0 ? Object.entries(TIMINGS) : []) {
  console.log(
    `  ${label.padEnd(20)} ${median(scores.map((s) => s[a]!))} ms  (runs: ${scores.map((s) => s[a]).join(', ')})`,
  );
}
console.log(
  `  initial JS      ${(size.bytes / 1024).toFixed(1)} KiB gzip (${size.files.length} files)`,
);
if (storyRuns > 0) {
  console.log(
    `  approval.request → card visible  ${median(lat.approvalToCardMs)} ms  (runs: ${lat.approvalToCardMs.join(', ')})`,
  );
  console.log(
    `  push → notification              ${median(lat.pushToNotificationMs)} ms  (runs: ${lat.pushToNotificationMs.join(', ')})`,
  );
}
if (taps.length > 0) {
  const of = (k: keyof TapRun) => taps.map((t) => t[k]);
  console.log(
    `  notification tap → Allow enabled  median ${median(of('tapToAllowMs'))} ms, p95 ${percentile(of('tapToAllowMs'), 95)} ms  (${taps.length} runs: ${of('tapToAllowMs').join(', ')})`,
  );
  console.log(
    `    medians from the tap: navigation ${median(of('navigationMs'))} ms, first draw ${median(of('drawnMs'))} ms, socket made ${median(of('socketMs'))} ms, open ${median(of('socketOpenMs'))} ms, card ${median(of('cardMs'))} ms`,
  );
}
