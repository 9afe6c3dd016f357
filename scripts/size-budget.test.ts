import { describe, expect, it } from 'vitest';
import { gzipSize, initialFiles, notPrecached } from './size-budget.ts';

describe('A8: size budget: what counts as initial JS', () => {
  it('counts the entry and its static imports, transitively, but never dynamic imports', () => {
    const files = initialFiles({
      'index.html': { file: 'assets/index.js', isEntry: true, imports: ['_shared.js'] },
      '_shared.js': { file: 'assets/shared.js', imports: ['_solid.js'] },
      '_solid.js': { file: 'assets/solid.js' },
      'src/ui/scanner.ts': { file: 'assets/scanner.js', imports: ['_solid.js'] },
      'node_modules/html5-qrcode/esm/index.js': { file: 'assets/esm.js' },
    });
    expect(files.sort()).toEqual(['assets/index.js', 'assets/shared.js', 'assets/solid.js']);
  });

  it('refuses a manifest without an entry instead of reporting 0 bytes', () => {
    expect(() => initialFiles({ 'a.js': { file: 'a.js' } })).toThrow(/no entry/);
  });

  it('measures gzip bytes, not raw bytes', () => {
    const raw = new TextEncoder().encode('a'.repeat(10_000));
    expect(gzipSize(raw)).toBeLessThan(200);
  });

  it('A8: names every JS file the worker does not precache, and only those', () => {
    const worker =
      'self.__WB_MANIFEST=[{"revision":null,"url":"assets/index-a.js"},{"revision":null,"url":"assets/nacl-fast-b.js"}]';
    expect(
      notPrecached(
        ['assets/index-a.js', 'assets/nacl-fast-b.js', 'assets/Rules-c.js', 'assets/x.css'],
        worker,
      ),
    ).toEqual(['assets/Rules-c.js']);
  });
});
