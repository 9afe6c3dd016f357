// `npm run size` (part of `npm test`, after the build): prints the initial JS size and fails when
// it is over budget.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  INITIAL_JS_BUDGET_BYTES,
  INITIAL_JS_TARGET_BYTES,
  gzipSize,
  initialFiles,
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
