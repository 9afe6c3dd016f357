// createDir, remove, createTempDir, createTempFile.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, mkdtemp, open, realpath, rm, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, fsFailure, type Outcome } from '../outcome.ts';

const MAX_AFFIX_CHARS = 64;
const SAFE_AFFIX = /^[A-Za-z0-9._-]*$/;

// path: the caller's (for messages); real: the walked path containment judged (H7a).
export const createDir = async (
  path: string,
  real: string,
  recursive: boolean,
): Promise<Outcome> => {
  try {
    await mkdir(real, { recursive });
    if (recursive && !(await lstat(real)).isDirectory()) {
      return fail('not_directory', `${path} exists and is not a directory`);
    }
    return { ok: true, kind: 'void' };
  } catch (e) {
    return fsFailure(e, path, 'createDir');
  }
};

export const remove = async (
  path: string,
  real: string,
  recursive: boolean,
  isRoot: boolean,
): Promise<Outcome> => {
  if (isRoot) return fail('permission_denied', `${path} is a served root and is never removed`);
  try {
    // unlink, rmdir and rm act on the entry itself; rm never follows the links inside.
    const st = await lstat(real);
    if (!st.isDirectory()) await unlink(real);
    else if (recursive) await rm(real, { recursive: true });
    else await rmdir(real);
    return { ok: true, kind: 'void' };
  } catch (e) {
    return fsFailure(e, path, 'remove');
  }
};

const checkAffix = (name: string, v: unknown): string | null =>
  v === undefined || (typeof v === 'string' && v.length <= MAX_AFFIX_CHARS && SAFE_AFFIX.test(v))
    ? null
    : `${name} must be at most ${MAX_AFFIX_CHARS} characters of A-Z a-z 0-9 . _ -`;

export const createTempDir = async (tempRoot: string, prefix: unknown): Promise<Outcome> => {
  const bad = checkAffix('prefix', prefix);
  if (bad) return fail('invalid', bad);
  try {
    const dir = await mkdtemp(join(tempRoot, (prefix as string | undefined) ?? 'tmp-'));
    return { ok: true, kind: 'write', canonicalPath: await realpath(dir), created: true };
  } catch (e) {
    return fsFailure(e, tempRoot, 'createTempDir in');
  }
};

export const createTempFile = async (
  tempRoot: string,
  prefix: unknown,
  suffix: unknown,
): Promise<Outcome> => {
  const bad = checkAffix('prefix', prefix) ?? checkAffix('suffix', suffix);
  if (bad) return fail('invalid', bad);
  const name = `${(prefix as string | undefined) ?? 'tmp-'}${randomBytes(8).toString('hex')}${(suffix as string | undefined) ?? ''}`;
  const path = join(tempRoot, name);
  try {
    const h = await open(path, 'wx', 0o600);
    const st = await h.stat();
    await h.close();
    return {
      ok: true,
      kind: 'write',
      canonicalPath: await realpath(path),
      inode: String(st.ino),
      created: true,
    };
  } catch (e) {
    return fsFailure(e, tempRoot, 'createTempFile in');
  }
};
