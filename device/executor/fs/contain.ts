// Containment (§6.6, X2): a path is served only when it lies inside the workspace root or the
// executor's temp root, both as written and after resolving symbolic links of its existing
// part. The key folder is always refused. Nothing is ever redirected: the caller's path is used
// as given, or refused with permission_denied.
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { basename, dirname, posix } from 'node:path';
import { fail, type Failure } from '../outcome.ts';

export type Containment = {
  /** null when the path may be served; followFinal: whether the operation follows a final symlink. */
  check(path: unknown, opts: { followFinal: boolean }): Promise<Failure | null>;
  /** Whether the path is one of the roots themselves (never removed). */
  isRoot(path: string): boolean;
};

export const within = (p: string, dir: string): boolean =>
  p === dir || p.startsWith(dir === '/' ? '/' : `${dir}/`);

const realOrSelf = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** Resolves the existing prefix of p through symlinks and appends the missing rest. */
const resolveExisting = async (p: string): Promise<string> => {
  const missing: string[] = [];
  let cur = p;
  for (;;) {
    try {
      const real = await realpath(cur);
      return missing.length === 0 ? real : posix.join(real, ...missing.reverse());
    } catch {
      if (cur === '/') return p;
      missing.push(basename(cur));
      cur = dirname(cur);
    }
  }
};

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
      const real =
        followFinal || path === '/'
          ? await resolveExisting(path)
          : posix.join(await resolveExisting(dirname(path)), basename(path));
      const realKey = refuseKey(real);
      if (realKey) return realKey;
      if (!realRoots.some((r) => within(real, r))) {
        return fail(
          'permission_denied',
          `${path} resolves through a symbolic link to ${real}, outside the served roots`,
        );
      }
      return null;
    },
    isRoot: (p) => lexicalRoots.includes(p),
  };
};
