// Per-test folders under the OS temp dir, removed afterwards.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const makeTmpDirs = () => {
  const made: string[] = [];
  return {
    make(prefix = 'dsh-exec-'): string {
      const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
      made.push(d);
      return d;
    },
    cleanup() {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
};
