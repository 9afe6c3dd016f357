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

/** Set by buildBundles for the processes the suite starts afterwards (its workers). */
const BUILT_ENV = 'DSH_TESTKIT_BUNDLES_BUILT';

export function bundlePath(entry: string, dir = BUNDLE_DIR): string {
  return path.join(dir, `${entry.replace(/\//g, '-').replace(/\.ts$/, '')}.mjs`);
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
 * Bundles one file of the repository to `out`. Written aside and renamed into place, so a process
 * started meanwhile — or a second run building at the same time — never reads half a file.
 */
async function bundleTo(entry: string, out: string): Promise<void> {
  mkdirSync(path.dirname(out), { recursive: true });
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
}

/** Builds every entry the suites start (their global setups call this once per run). */
export async function buildBundles(): Promise<void> {
  await Promise.all(ENTRIES.map((entry) => bundleTo(entry, bundlePath(entry))));
  process.env[BUILT_ENV] = '1';
}

const once = new Map<string, Promise<string>>();
/**
 * The bundle of any file of the repository (a benchmark's own server too), built at most once
 * per process into `dir` — not at all when the suite's global setup has built it already.
 */
export function bundled(entry: string, dir = BUNDLE_DIR): Promise<string> {
  const out = bundlePath(entry, dir);
  if (dir === BUNDLE_DIR && isEntry(entry) && process.env[BUILT_ENV] && existsSync(out))
    return Promise.resolve(out);
  let done = once.get(out);
  if (!done) once.set(out, (done = bundleTo(entry, out).then(() => out)));
  return done;
}
