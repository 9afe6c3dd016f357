// The relay, the mock machine and the device executor run in the e2e suite as one esbuild bundle
// each, started with plain `node`: under the `tsx` CLI every start cost ~1.5 s of CPU (two node
// processes and the loader) against ~0.4 s for the bundle, and the suite starts them ~170 times
// on 2 cores. Dependencies stay external (they resolve from node_modules), so the bundle runs the
// same code as `tsx <script>`. Built once per run by the global setup (global-setup.ts).
import { mkdirSync, renameSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import url from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..');
const BUNDLE_DIR = path.join(repo, 'node_modules/.cache/dsh-e2e');

/** Every product entry the suite starts as a child process. */
export const ENTRIES = ['relay/main.ts', 'machine/main.ts', 'device/main.ts'] as const;
export type Entry = (typeof ENTRIES)[number];

export function isEntry(script: string): script is Entry {
  return (ENTRIES as readonly string[]).includes(script);
}

export function bundlePath(entry: Entry): string {
  return path.join(BUNDLE_DIR, `${entry.replace(/\//g, '-').replace(/\.ts$/, '')}.mjs`);
}

/** The command that runs `script` as the product would: its bundle under this node. */
export function nodeCommand(script: string): { command: string; args: string[] } {
  if (!isEntry(script)) throw new Error(`e2e: ${script} is not a bundled entry (${ENTRIES})`);
  return { command: process.execPath, args: [bundlePath(script)] };
}

export async function buildBundles(): Promise<void> {
  mkdirSync(BUNDLE_DIR, { recursive: true });
  await Promise.all(
    ENTRIES.map(async (entry) => {
      const out = bundlePath(entry);
      // Written aside and renamed, so a process started meanwhile never reads half a file.
      const temp = `${out}.${randomBytes(4).toString('hex')}.tmp.mjs`;
      await build({
        entryPoints: [path.join(repo, entry)],
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
