// `npm run size` (part of `npm test`, after the build): prints the initial JS size and fails when
// it is over budget, or when a JS file is missing from the service worker's precache (A8).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  INITIAL_JS_BUDGET_BYTES,
  INITIAL_JS_TARGET_BYTES,
  gzipSize,
  initialFiles,
  notPrecached,
  type Manifest,
} from './size-budget.ts';

const dist = process.argv[2] ?? 'dist';
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8')) as Manifest;
let total = 0;
for (const file of initialFiles(manifest)) {
  const size = gzipSize(readFileSync(join(dist, file)));
  total += size;
  console.log(`  ${(size / 1024).toFixed(1).padStart(6)} KiB gzip  ${file}`);
}
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
console.log(
  `initial JS: ${kib(total)} gzip (budget ${kib(INITIAL_JS_BUDGET_BYTES)}, target ${kib(INITIAL_JS_TARGET_BYTES)})`,
);
if (total > INITIAL_JS_BUDGET_BYTES) {
  console.error(`size budget exceeded by ${kib(total - INITIAL_JS_BUDGET_BYTES)}`);
  process.exit(1);
}
// A8: a chunk loaded on demand must be there offline: every JS file is in the worker's precache.
const assets = readdirSync(join(dist, 'assets')).map((f) => `assets/${f}`);
const missing = notPrecached(assets, readFileSync(join(dist, 'sw.js'), 'utf8'));
if (missing.length > 0) {
  console.error(`not precached by the service worker: ${missing.join(', ')}`);
  process.exit(1);
}
console.log(`precached: all ${assets.filter((f) => f.endsWith('.js')).length} JS files`);
