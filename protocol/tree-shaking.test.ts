import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import url from 'node:url';

// The phone's bundle budget: protocol/ is named exports with no side effects at module load, so
// a bundler keeps only what is imported. Proven by bundling single imports with esbuild.
const here = path.dirname(url.fileURLToPath(import.meta.url));
// frames.ts is the relay part's file and is checked where it is written.
const MODULES = readdirSync(here).filter(
  (f) =>
    f.endsWith('.ts') &&
    !f.endsWith('.test.ts') &&
    !f.endsWith('.d.ts') &&
    f !== 'frames.ts' &&
    f !== 'index.ts',
);

async function bundleOf(contents: string): Promise<string> {
  const r = await build({
    stdin: { contents, resolveDir: here, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    // tweetnacl is CommonJS (kept whole by any bundler); leave it out to see our own code.
    external: ['tweetnacl'],
  });
  return r.outputFiles[0]!.text;
}

describe('tree-shaking (named exports, no side effects at load)', () => {
  // Module by module, so a failure names the file that has a load-time side effect.
  it.each(MODULES)('importing %s for nothing bundles none of it', async (file) => {
    const out = await bundleOf(`import './${file}';`);
    // Only the (external, CommonJS) tweetnacl import statements may remain.
    expect(out.replace(/import\s*(\w+\s*from\s*)?"tweetnacl";/g, '').trim()).toBe('');
  });

  it('clampText alone does not drag in the message parsers, pairing or crypto', async () => {
    const out = await bundleOf(`export { clampText } from './index.ts';`);
    for (const marker of ['machine.status', 'not-base64url', 'dsh-dispatch/room', 'auth-failed']) {
      expect(out).not.toContain(marker);
    }
  });

  it('the message parsers do not drag in pairing or sealing', async () => {
    const out = await bundleOf(`export { parseMachineMessage } from './index.ts';`);
    expect(out).toContain('machine.status');
    for (const marker of ['not-base64url', 'dsh-dispatch/room', 'auth-failed']) {
      expect(out).not.toContain(marker);
    }
  });

  it("the service worker's push parser does not drag in the message parsers or E6/E7 helpers", async () => {
    const out = await bundleOf(`export { open, parseCompactPush } from './index.ts';`);
    expect(out).toContain('push');
    for (const marker of [
      'machine.status',
      'room.rotate',
      'dsh-dispatch/decision',
      'bad-relay-url',
    ]) {
      expect(out).not.toContain(marker);
    }
  });
});
