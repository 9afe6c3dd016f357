// Write payloads (§3.4, X4, X5): the bytes go into a temp file beside the target; at commit the
// length and sha256 are verified, the file is fsynced and moved into place in one atomic step
// (rename, or link(2) for exclusive create), and the folder is fsynced. Any failure removes the
// temp file and leaves the target untouched.
import { createHash, randomBytes, type Hash } from 'node:crypto';
import { constants } from 'node:fs';
import {
  chmod,
  link,
  lstat,
  open,
  realpath,
  rename,
  statfs,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fail, fsFailure, linkSwapped, type Failure, type Outcome } from '../outcome.ts';
import type { TempJournal } from './temp-journal.ts';

export type WriteMode = 'replace' | 'exclusive' | 'append';

export type WriteLimits = { readonly maxWriteBytes: number; readonly minFreeBytes: number };

export type PendingWrite = {
  begin(totalLen: unknown, sha256: unknown): Failure | null;
  chunk(offset: unknown, data: Buffer): Promise<Failure | null>;
  commit(totalLen: unknown, sha256: unknown): Promise<Outcome>;
  /** Removes the temp file; the target was never touched. */
  abort(): Promise<void>;
};

const HEX_SHA256 = /^[0-9a-f]{64}$/;

const fsyncDir = async (dir: string): Promise<void> => {
  const h = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await h.sync();
  } finally {
    await h.close();
  }
};

const tempName = (dir: string, target: string) =>
  join(dir, `.${basename(target).slice(0, 100)}.dsh-${randomBytes(8).toString('hex')}.tmp`);

/**
 * The file the write lands on: the walked path (H7a), which for replace and append already
 * followed a final symlink the way open(2) would, so the rename replaces the real file.
 */
const resolveTarget = async (
  path: string,
  real: string,
  finalLink: boolean,
  mode: WriteMode,
): Promise<string | Failure> => {
  try {
    const st = await lstat(real);
    if (st.isDirectory())
      return fail('is_directory', `${path} ${finalLink ? 'points to' : 'is'} a directory`);
    if (mode === 'exclusive') return fail('already_exists', `${path} already exists`);
    if (st.isSymbolicLink()) return linkSwapped(path);
    if (mode === 'append' && !st.isFile()) {
      return fail('invalid', `${path} is not a regular file (a FIFO, socket or device)`);
    }
    return real;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return fsFailure(e, path, 'inspecting');
    if (finalLink && mode !== 'exclusive') {
      return fail('invalid', `${path} is a dangling symbolic link`);
    }
    return real;
  }
};

/** Copies a regular file's bytes onto out, opened without following a final link (H7a). */
const copyFileTo = async (from: string, out: FileHandle): Promise<void> => {
  const src = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await src.stat()).isFile()) {
      throw Object.assign(new Error(`${from} is not a regular file`), { code: 'EINVAL' });
    }
    for await (const part of src.createReadStream({ autoClose: false })) {
      await out.write(part as Buffer);
    }
  } finally {
    await src.close();
  }
};

export const startWrite = async (
  args: {
    /** The caller's path (for messages) and the walked one containment judged (H7a). */
    path: string;
    real: string;
    finalLink: boolean;
    contentLen: unknown;
    sha256: unknown;
    mode: WriteMode;
  },
  limits: WriteLimits,
  journal: TempJournal,
): Promise<PendingWrite | Failure> => {
  const { path, real, finalLink, contentLen, sha256, mode } = args;
  if (typeof contentLen !== 'number' || !Number.isSafeInteger(contentLen) || contentLen < 0) {
    return fail('invalid', 'contentLen must be a non-negative integer');
  }
  if (typeof sha256 !== 'string' || !HEX_SHA256.test(sha256)) {
    return fail('invalid', 'sha256 must be 64 lower-case hex digits');
  }
  if (contentLen > limits.maxWriteBytes) {
    return fail(
      'invalid',
      `contentLen ${contentLen} exceeds the executor's write cap of ${limits.maxWriteBytes} bytes`,
    );
  }
  const target = await resolveTarget(path, real, finalLink, mode);
  if (typeof target !== 'string') return target;
  const dir = dirname(target);
  try {
    if (!(await lstat(dir)).isDirectory())
      return fail('not_directory', `${dir} is not a directory`);
    const fs = await statfs(dir);
    const free = fs.bavail * fs.bsize;
    if (free < contentLen + limits.minFreeBytes) {
      return fail(
        'unknown',
        `not enough free space in ${dir}: ${free} bytes free, ${contentLen} needed plus a reserve`,
      );
    }
  } catch (e) {
    return fsFailure(e, dir, 'preparing to write in');
  }

  const temp = tempName(dir, target);
  journal.record(temp);
  let handle: FileHandle;
  try {
    handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o666);
  } catch (e) {
    journal.forget(temp);
    return fsFailure(e, dir, 'creating a temp file in');
  }

  const hash: Hash = createHash('sha256');
  let written = 0;
  let begun = false;
  let open_ = true;

  const discard = async () => {
    if (open_) {
      open_ = false;
      await handle.close().catch(() => {});
    }
    await unlink(temp).catch(() => {});
    journal.forget(temp);
  };

  const sameAsArgs = (len: unknown, digest: unknown): Failure | null =>
    len !== contentLen || digest !== sha256
      ? fail('invalid', "payload totalLen/sha256 disagree with the instruction's contentLen/sha256")
      : null;

  const place = async (): Promise<Outcome> => {
    let existed = true;
    try {
      await lstat(target);
    } catch {
      existed = false;
    }
    if (mode === 'append') {
      const merged = tempName(dir, target);
      journal.record(merged);
      try {
        const out = await open(merged, 'wx', 0o666);
        try {
          if (existed) await copyFileTo(target, out);
          await copyFileTo(temp, out);
          if (existed) await out.chmod((await lstat(target)).mode & 0o7777);
          await out.sync();
        } finally {
          await out.close();
        }
        await rename(merged, target);
      } catch (e) {
        await unlink(merged).catch(() => {});
        throw e;
      } finally {
        journal.forget(merged);
      }
      await unlink(temp).catch(() => {});
      await fsyncDir(dir);
      return { ok: true, kind: 'void' };
    }
    if (mode === 'exclusive') {
      await link(temp, target); // EEXIST is the atomic "someone else won"
      await unlink(temp);
    } else {
      if (existed) await chmod(temp, (await lstat(target)).mode & 0o7777);
      await rename(temp, target);
    }
    await fsyncDir(dir);
    const st = await lstat(target);
    return {
      ok: true,
      kind: 'write',
      canonicalPath: await realpath(target),
      inode: String(st.ino),
      created: mode === 'exclusive' ? true : !existed,
    };
  };

  return {
    begin(totalLen, digest) {
      if (begun) return fail('invalid', 'a second payload begin');
      begun = true;
      return sameAsArgs(totalLen, digest);
    },
    async chunk(offset, data) {
      if (!begun) return fail('invalid', 'payload chunk before begin');
      if (offset !== written)
        return fail('invalid', `payload chunk at offset ${String(offset)}, expected ${written}`);
      if (written + data.length > contentLen)
        return fail('invalid', 'payload is longer than contentLen');
      try {
        await handle.write(data, 0, data.length, written);
      } catch (e) {
        return fsFailure(e, dir, 'writing a temp file in');
      }
      hash.update(data);
      written += data.length;
      return null;
    },
    async commit(totalLen, digest) {
      try {
        const mismatch = begun
          ? sameAsArgs(totalLen, digest)
          : fail('invalid', 'payload commit before begin');
        if (mismatch) return mismatch;
        if (written !== contentLen) {
          return fail(
            'invalid',
            `payload carried ${written} bytes, contentLen is ${contentLen}; ${path} untouched`,
          );
        }
        if (hash.digest('hex') !== sha256) {
          return fail('invalid', `payload sha256 does not match; ${path} untouched`);
        }
        await handle.sync();
        await handle.close();
        open_ = false;
        return await place();
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ELOOP') return linkSwapped(path);
        return fsFailure(e, path, 'writing');
      } finally {
        await discard();
      }
    },
    abort: discard,
  };
};
