// H7a: a path is resolved the way the kernel walks it — one component at a time, lstat on each,
// readlink on a symbolic link and its target walked in its place — instead of realpath(3) with
// a "does not exist yet" fallback. realpath fails on a link whose target is missing, and the old
// fallback then judged the link's own location; the kernel, asked to open the same path,
// follows the link. Walking by hand also sees every hop, so a hop into /proc or /dev is refused:
// their links are "magic" (`/proc/self/fd/N` opens the object an fd holds, whatever its link
// text says, even a deleted file) and their files are devices, neither of which a workspace
// path may reach.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { posix } from 'node:path';

/** Linux's MAXSYMLINKS: more hops than this is ELOOP for the kernel too. */
export const MAX_LINK_HOPS = 40;

/** Trees no walk may enter, not even as the target of a link (H7a). */
export const SPECIAL_TREES = ['/proc', '/dev'] as const;

export type Walked =
  /**
   * real: the walked path, free of symbolic links (its missing tail, if any, taken as written).
   * exists: the last component exists. finalLink: the last component of `path` is a symbolic link
   * that was followed.
   */
  | {
      readonly ok: true;
      readonly real: string;
      readonly exists: boolean;
      readonly finalLink: boolean;
    }
  | { readonly ok: false; readonly refused: 'special'; readonly at: string }
  | { readonly ok: false; readonly refused: 'loop' }
  | { readonly ok: false; readonly refused: 'missing_parent'; readonly at: string }
  | { readonly ok: false; readonly refused: 'error'; readonly at: string; readonly error: unknown };

export const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);

export const inSpecialTree = (p: string): boolean => SPECIAL_TREES.some((t) => within(p, t));

const parts = (p: string): string[] => p.split('/').filter((s) => s.length > 0);

/**
 * Walks an absolute path. followFinal: whether a symbolic link in the last position is followed
 * (open, readdir, realpath) or judged as itself (lstat, readlink, unlink, mkdir, link).
 */
export const walkPath = async (path: string, followFinal: boolean): Promise<Walked> => {
  if (inSpecialTree(path)) return { ok: false, refused: 'special', at: path };
  // The usual case in one call: realpath(3) gives back the very same string only when every
  // component exists and none is a link, so there is nothing to follow or judge hop by hop.
  try {
    if ((await realpath(path)) === path)
      return { ok: true, real: path, exists: true, finalLink: false };
  } catch {
    // missing, a loop, a dangling link, a deleted file behind /proc: walk it
  }
  const pending = parts(path).reverse(); // a stack: the next component is on top
  let cur = '/';
  let hops = 0;
  let missing = false;
  let finalLink = false;
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (name === '.') continue;
    if (name === '..') {
      // Below a missing component the kernel stops with ENOENT; it never climbs back out.
      if (missing) return { ok: false, refused: 'missing_parent', at: cur };
      cur = posix.dirname(cur);
      continue;
    }
    const next = cur === '/' ? `/${name}` : `${cur}/${name}`;
    if (inSpecialTree(next)) return { ok: false, refused: 'special', at: next };
    if (missing) {
      cur = next;
      continue;
    }
    let isLink: boolean;
    try {
      isLink = (await lstat(next)).isSymbolicLink();
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        return { ok: false, refused: 'error', at: next, error: e };
      missing = true;
      cur = next;
      continue;
    }
    const last = pending.length === 0;
    if (!isLink || (last && !followFinal)) {
      cur = next;
      continue;
    }
    if (++hops > MAX_LINK_HOPS) return { ok: false, refused: 'loop' };
    if (last) finalLink = true;
    let target: string;
    try {
      target = await readlink(next);
    } catch (e) {
      return { ok: false, refused: 'error', at: next, error: e };
    }
    for (const p of parts(target).reverse()) pending.push(p);
    if (target.startsWith('/')) cur = '/';
  }
  return { ok: true, real: cur, exists: !missing, finalLink };
};
