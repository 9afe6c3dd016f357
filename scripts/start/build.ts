import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO } from './children.ts';

// The app is built when there is no build, or when a source it is made from is newer than it.

const SOURCES = ['src', 'sw', 'protocol', 'public', 'index.html', 'vite.config.ts', 'package.json'];

function newestMtimeMs(p: string): number {
  if (!existsSync(p)) return 0;
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const name of readdirSync(p)) newest = Math.max(newest, newestMtimeMs(path.join(p, name)));
  return newest;
}

export function buildIfNeeded(): { built: boolean } {
  const index = path.join(REPO, 'dist/index.html');
  const builtAt = existsSync(index) ? statSync(index).mtimeMs : 0;
  const newest = Math.max(...SOURCES.map((s) => newestMtimeMs(path.join(REPO, s))));
  if (builtAt > 0 && builtAt >= newest) return { built: false };
  process.stdout.write('[start] building the app (vite build)…\n');
  const r = spawnSync(path.join(REPO, 'node_modules/.bin/vite'), ['build', '--logLevel', 'warn'], {
    cwd: REPO,
    // A production build whatever the caller's NODE_ENV: started from a test runner
    // (NODE_ENV=test) vite built Solid's dev bundle with import.meta.env.DEV set, which
    // registers no service worker.
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error(`vite build failed (exit ${r.status ?? r.signal})`);
  return { built: true };
}
