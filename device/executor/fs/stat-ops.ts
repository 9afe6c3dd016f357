// The four governance reads (§6.5: exists, canonicalPath, fileInfo, readLink) and listDir.
// They answer from the file system as it is, or fail with a real code; never a guess. Each takes
// the caller's path (for the answer and messages) and the walked path containment judged
// (H7a), and acts on the walked one.
import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { lstat, open, readdir, readlink, realpath } from 'node:fs/promises';
import { posix } from 'node:path';
import {
  fail,
  fsFailure,
  linkSwapped,
  type FileInfo,
  type FileKind,
  type Outcome,
} from '../outcome.ts';

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

export const fileInfo = async (path: string, real = path): Promise<Outcome> => {
  try {
    return { ok: true, kind: 'stat', info: infoOf(path, await lstat(real)) };
  } catch (e) {
    return fsFailure(e, path, 'fileInfo');
  }
};

export const listDir = async (path: string, real = path): Promise<Outcome> => {
  try {
    const st = await lstat(real);
    if (!st.isDirectory()) return fail('not_directory', `${path} is not a directory`);
    // O_NOFOLLOW: the directory listed is the one judged, not a link put in its place since.
    const h = await open(real, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    await h.close();
    const names = (await readdir(real)).sort();
    const entries: FileInfo[] = [];
    for (const name of names) {
      try {
        entries.push(infoOf(posix.join(path, name), await lstat(posix.join(real, name))));
      } catch (e) {
        // Removed between readdir and lstat: it is not there any more, so it is not listed.
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    return { ok: true, kind: 'stat', entries };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') return linkSwapped(path);
    return fsFailure(e, path, 'listDir');
  }
};

/**
 * The walked path is free of links, so realpath(3) must give it back unchanged; anything else
 * means a component was swapped for a link after the walk, and the answer is refused.
 */
export const canonicalPath = async (path: string, real: string): Promise<Outcome> => {
  try {
    return (await realpath(real)) === real
      ? { ok: true, kind: 'stat', canonicalPath: real }
      : linkSwapped(path);
  } catch (e) {
    return fsFailure(e, path, 'canonicalPath');
  }
};

/** True when a directory entry exists at path (a dangling symlink exists: it is an entry). */
export const exists = async (path: string, real = path): Promise<Outcome> => {
  try {
    await lstat(real);
    return { ok: true, kind: 'stat', existsValue: true };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR')
      return { ok: true, kind: 'stat', existsValue: false };
    return fsFailure(e, path, 'exists');
  }
};

/** One hop, unresolved; null when the path is not a symlink (§3.1). */
export const readLink = async (path: string, real = path): Promise<Outcome> => {
  try {
    const st = await lstat(real);
    if (!st.isSymbolicLink()) return { ok: true, kind: 'stat', linkTarget: null };
    return { ok: true, kind: 'stat', linkTarget: await readlink(real) };
  } catch (e) {
    return fsFailure(e, path, 'readLink');
  }
};
