// A copy of the built app on its own origin, so a test can deploy a "new version" of the worker
// without touching dist/ that the other tests are served from.
import { cpSync, mkdtempSync, readFileSync, rmSync, existsSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webmanifest': 'application/manifest+json',
  '.map': 'application/json',
};

export type StaticCopy = { origin: string; dir: string; close(): Promise<void> };

export async function serveDistCopy(distDir = 'dist'): Promise<StaticCopy> {
  if (!existsSync(path.join(distDir, 'sw.js'))) throw new Error('run `npm run build` first');
  const dir = mkdtempSync(path.join(tmpdir(), 'dsh-dist-'));
  cpSync(distDir, dir, { recursive: true });
  const server = http.createServer((req, res) => {
    const urlPath = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    let file = path.join(dir, path.normalize(urlPath));
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) {
      file = path.join(dir, 'index.html');
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    res.end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    dir,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
