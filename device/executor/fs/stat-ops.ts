// The four governance reads (§6.5: exists, canonicalPath, fileInfo, readLink) and listDir.
// They answer from the file system as it is, or fail with a real code; never a guess.
import type { Stats } from 'node:fs';
import { lstat, readdir, readlink, realpath } from 'node:fs/promises';
import { posix } from 'node:path';
import { fail, fsFailure, type FileInfo, type FileKind, type Outcome } from '../outcome.ts';

const kindOf = (st: Stats): FileKind =>
  st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';

/** lstat-based: a symlink is reported as a symlink, never as what it points to. */
export const infoOf = (path: string, st: Stats): FileInfo => ({
  path,
  kind: kindOf(st),
  size: st.size,
  mtimeMs: Math.floor(st.mtimeMs),
  mode: st.mode & 0o7777,
});

export const fileInfo = async (path: string): Promise<Outcome> => {
  try {
    return { ok: true, kind: 'stat', info: infoOf(path, await lstat(path)) };
  } catch (e) {
    return fsFailure(e, path, 'fileInfo');
  }
};

export const listDir = async (path: string): Promise<Outcome> => {
  try {
    const st = await lstat(path);
    if (!st.isDirectory()) return fail('not_directory', `${path} is not a directory`);
    const names = (await readdir(path)).sort();
    const entries: FileInfo[] = [];
    for (const name of names) {
      const child = posix.join(path, name);
      try {
        entries.push(infoOf(child, await lstat(child)));
      } catch (e) {
        // Removed between readdir and lstat: it is not there any more, so it is not listed.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    return { ok: true, kind: 'stat', entries };
  } catch (e) {
    return fsFailure(e, path, 'listDir');
  }
};

export const canonicalPath = async (path: string): Promise<Outcome> => {
  try {
    return { ok: true, kind: 'stat', canonicalPath: await realpath(path) };
  } catch (e) {
    return fsFailure(e, path, 'canonicalPath');
  }
};

/** True when a directory entry exists at path (a dangling symlink exists: it is an entry). */
export const exists = async (path: string): Promise<Outcome> => {
  try {
    await lstat(path);
    return { ok: true, kind: 'stat', existsValue: true };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { ok: true, kind: 'stat', existsValue: false };
    return fsFailure(e, path, 'exists');
  }
};

/** One hop, unresolved; null when the path is not a symlink (§3.1). */
export const readLink = async (path: string): Promise<Outcome> => {
  try {
    const st = await lstat(path);
    if (!st.isSymbolicLink()) return { ok: true, kind: 'stat', linkTarget: null };
    return { ok: true, kind: 'stat', linkTarget: await readlink(path) };
  } catch (e) {
    return fsFailure(e, path, 'readLink');
  }
};
