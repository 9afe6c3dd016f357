import { describe, expect, it } from 'vitest';
import path from 'node:path';
import url from 'node:url';
import { probeDiagnostics } from '../protocol/test-support/compile-probe.ts';

// Rule (docs/architecture.md): page-worker/ is read by the page (DOM) and by the service worker
// (WebWorker), so it compiles with neither lib and no Node types: a global only one side has is a
// compile error here. Proven by compiling probes with page-worker's own tsconfig.
const here = path.dirname(url.fileURLToPath(import.meta.url));

const ONE_SIDE_ONLY = {
  window: 'window.location',
  document: 'document.title',
  navigator: 'navigator.serviceWorker',
  self: 'self.registration',
  clients: 'clients.matchAll()',
  indexedDB: 'indexedDB.open("keyval-store")',
  Buffer: 'Buffer.from("a")',
  process: 'process.env',
};

describe('page-worker/ runtime boundary', () => {
  // One compile for every probe: each is its own statement, so each reports its own error.
  it('a global of the page, the worker or Node fails to compile', () => {
    const source = Object.values(ONE_SIDE_ONLY)
      .map((use, i) => `export const x${i} = ${use};`)
      .join('\n');
    const errors = probeDiagnostics(here, source).join('\n');
    for (const name of Object.keys(ONE_SIDE_ONLY)) {
      expect(errors).toContain(`Cannot find name '${name}'`);
    }
  });

  it('the contract itself and protocol/ compile there', () => {
    expect(
      probeDiagnostics(
        here,
        "import { parseWorkerMessage } from './messages.ts'; export const r = parseWorkerMessage({});",
      ),
    ).toEqual([]);
  });
});
