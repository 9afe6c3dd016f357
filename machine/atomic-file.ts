import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';

/**
 * Writes `content` to `file` atomically: a temp file beside it (created with `mode`), fsync, then
 * rename over `file`. On any failure the temp file is removed and the error thrown as it came, so
 * `file` is either as it was or whole; the caller names the failure in its own error type.
 */
export function writeFileAtomic(file: string, content: string, mode: number): void {
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  let fd: number | undefined;
  try {
    fd = openSync(tmp, 'wx', mode);
    writeSync(fd, content);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // the temp file was never created or is already gone
    }
    throw e;
  }
}
