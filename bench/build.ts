// Servers under benchmark run as plain JavaScript that esbuild builds for the run, not under
// tsx: with tsx's runtime hooks loaded, the relay (many TypeScript modules) falls into
// back-to-back mark-compacts under 16 KiB traffic (docs/relay.md, "tsx and the GC").
import { build } from 'esbuild';
import path from 'node:path';
import url from 'node:url';

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..');

/** Bundles `entry` (relative to the repository) into `node_modules/.cache/<dir>`; its path. */
export async function built(entry: string, dir: string): Promise<string> {
  const outfile = path.join(
    root,
    'node_modules/.cache',
    dir,
    path.basename(entry).replace(/\.ts$/, '.mjs'),
  );
  await build({
    entryPoints: [path.join(root, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'error',
  });
  return outfile;
}
