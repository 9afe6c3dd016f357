import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type TmpDir = { dir: string; cleanup(): void };

/** A fresh real folder under the OS temp dir (realpath'd), removed by cleanup(). */
export function makeTmpDir(prefix = 'dsh-test-'): TmpDir {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Several folders made over a test, all removed by one cleanup(). */
export function makeTmpDirs(defaultPrefix = 'dsh-test-') {
  const made: TmpDir[] = [];
  return {
    make(prefix = defaultPrefix): string {
      const t = makeTmpDir(prefix);
      made.push(t);
      return t.dir;
    },
    cleanup(): void {
      for (const t of made.splice(0)) t.cleanup();
    },
  };
}
