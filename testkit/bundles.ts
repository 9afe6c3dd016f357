// The product's entries as one esbuild bundle each, started with plain `node`: under tsx every
// start cost 0.7–1.8 s of CPU (the loader transpiling on the fly; the CLI adds a second node
// process) against ~0.35 s for the bundle, and the unit and e2e suites start them hundreds of
// times on 2 cores. Dependencies stay external (they resolve from node_modules), so a bundle runs
// the same code as `tsx <entry>`. Built once per run by the suites' global setups (vitest:
// testkit/vitest-global-setup.ts; Playwright: e2e/support/global-setup.ts).
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import url from 'node:url';
import { build } from 'esbuild';

export const REPO = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');
const BUNDLE_DIR = path.join(REPO, 'node_modules/.cache/dsh-bundles');

/** Every product entry a suite starts as a child process. */
export const ENTRIES = [
  'relay/main.ts',
  'machine/main.ts',
  'device/main.ts',
  'device/lane/main.ts',
] as const;
export type Entry = (typeof ENTRIES)[number];

export function isEntry(script: string): script is Entry {
  return (ENTRIES as readonly string[]).includes(script);
}

export function bundlePath(entry: Entry): string {
  return path.join(BUNDLE_DIR, `${entry.replace(/\//g, '-').replace(/\.ts$/, '')}.mjs`);
}

/** The command that runs `entry` as the product would: its bundle under this node. */
export function nodeCommand(entry: string): { command: string; args: string[] } {
  if (!isEntry(entry)) throw new Error(`testkit: ${entry} is not a bundled entry (${ENTRIES})`);
  const file = bundlePath(entry);
  if (!existsSync(file))
    throw new Error(`testkit: ${file} is missing; the suite's global setup builds it`);
  return { command: process.execPath, args: [file] };
}

/**
 * Builds every entry. Each bundle is written aside and renamed into place, so a process started
 * meanwhile — or a second run building at the same time — never reads half a file.
 */
export async function buildBundles(): Promise<void> {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  await Promise.all(
    ENTRIES.map(async (entry) => {
      const out = bundlePath(entry);
      const temp = `${out}.${randomBytes(4).toString('hex')}.tmp.mjs`;
      await build({
        entryPoints: [path.join(REPO, entry)],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        outfile: temp,
        logLevel: 'warning',
      });
      renameSync(temp, out);
    }),
  );
}
