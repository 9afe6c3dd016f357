// X4: orphan temp files. A write's temp file lives beside its target (so the final rename is
// atomic) — anywhere in the workspace. Scanning the workspace for orphans at start would be slow
// and could touch user files, so each temp path is recorded here before the file is created and
// forgotten after it is renamed or removed; at start, whatever is still recorded is an orphan of
// a killed executor and is deleted (only if its name still has our temp pattern).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** `.<target name>.dsh-<16 hex>.tmp` */
export const TEMP_NAME_PATTERN = /^\..*\.dsh-[0-9a-f]{16}\.tmp$/;

export type TempJournal = {
  record(tempPath: string): void;
  forget(tempPath: string): void;
  /** Deletes every recorded orphan; returns how many files were removed. */
  sweep(): number;
};

export const makeTempJournal = (dir: string): TempJournal => {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const entry = (p: string) => join(dir, createHash('sha256').update(p).digest('hex').slice(0, 32));
  return {
    record: (p) => writeFileSync(entry(p), p),
    forget: (p) => rmSync(entry(p), { force: true }),
    sweep() {
      let removed = 0;
      for (const name of readdirSync(dir)) {
        const file = join(dir, name);
        let p = '';
        try {
          p = readFileSync(file, 'utf8');
        } catch {
          continue;
        }
        if (p.startsWith('/') && TEMP_NAME_PATTERN.test(basename(p))) {
          try {
            unlinkSync(p);
            removed += 1;
          } catch {
            // Already gone (the write finished or failed cleanly before the kill).
          }
        }
        rmSync(file, { force: true });
      }
      return removed;
    },
  };
};
