// Containment (§6.6, X2, H7a): a path is served only when it lies inside the workspace root or
// the executor's temp root, both as written and as the kernel would walk it (walk.ts: every
// symbolic link followed by hand, a missing tail taken as written). The key folder is always
// refused, and so is any hop into /proc or /dev. The walked path is handed to the operation,
// which opens it without following a final link where it can (O_NOFOLLOW), so the object
// judged here is the object used. Nothing is ever redirected: the walked path is where the
// kernel would have gone with the caller's path.
import { realpathSync } from 'node:fs';
import { posix } from 'node:path';
import { fail, fsFailure, type Failure } from '../outcome.ts';
import { inSpecialTree, walkPath, within } from './walk.ts';

export { within } from './walk.ts';

/** A path that may be served: `real` is where it leads, free of symbolic links. */
export type Served = {
  readonly ok: true;
  readonly path: string;
  readonly real: string;
  /** The object at `real` existed during the walk. */
  readonly exists: boolean;
  /** The caller's last component is a symbolic link the walk followed. */
  readonly finalLink: boolean;
};

export type Containment = {
  /** followFinal: whether the operation follows a final symlink (open) or acts on it (lstat). */
  check(path: unknown, opts: { followFinal: boolean }): Promise<Failure | Served>;
  /** Whether the path is one of the roots themselves (never removed). */
  isRoot(path: string): boolean;
};

const realOrSelf = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** Why a served root is unusable (it lies in a tree no walk may enter), or null. */
export const rootProblem = (root: string): string | null =>
  inSpecialTree(root) || inSpecialTree(realOrSelf(root))
    ? `${root} lies under /proc or /dev, whose entries the executor never serves (H7a)`
    : null;

export const makeContainment = (roots: readonly string[], keyDir: string): Containment => {
  const lexicalRoots = [...new Set(roots.flatMap((r) => [r, realOrSelf(r)]))];
  const realRoots = roots.map(realOrSelf);
  const keyDirs = [...new Set([keyDir, realOrSelf(keyDir)])];

  const refuseKey = (p: string): Failure | null =>
    keyDirs.some((k) => within(p, k))
      ? fail(
          'permission_denied',
          `${p} is inside the executor's key folder, which is never served (X2)`,
        )
      : null;

  return {
    async check(path, { followFinal }) {
      if (typeof path !== 'string' || path.length === 0) {
        return fail('invalid', 'path must be a non-empty string');
      }
      if (path.includes('\0')) return fail('invalid', 'path contains a NUL byte');
      if (
        !path.startsWith('/') ||
        posix.normalize(path) !== path ||
        (path.endsWith('/') && path !== '/')
      ) {
        return fail('invalid', `path ${path} is not absolute and normalized`);
      }
      const keyRefusal = refuseKey(path);
      if (keyRefusal) return keyRefusal;
      if (!lexicalRoots.some((r) => within(path, r))) {
        return fail(
          'permission_denied',
          `${path} is outside the workspace root and the executor's temp root`,
        );
      }
      const w = await walkPath(path, followFinal);
      if (!w.ok) {
        switch (w.refused) {
          case 'special':
            return fail(
              'permission_denied',
              `${path} leads through a symbolic link into ${w.at}; /proc and /dev are never served (H7a)`,
            );
          case 'loop':
            return fail('invalid', `${path}: too many levels of symbolic links`);
          case 'missing_parent':
            return fail('not_found', `${path}: ${w.at} does not exist`);
          case 'error':
            return fsFailure(w.error, w.at, `resolving ${path} at`);
        }
      }
      const realKey = refuseKey(w.real);
      if (realKey) return realKey;
      if (!realRoots.some((r) => within(w.real, r))) {
        return fail(
          'permission_denied',
          `${path} resolves through a symbolic link to ${w.real}, outside the served roots`,
        );
      }
      return { ok: true, path, real: w.real, exists: w.exists, finalLink: w.finalLink };
    },
    isRoot: (p) => lexicalRoots.includes(p),
  };
};
