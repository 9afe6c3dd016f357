import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../dispatch/cwd-guard.ts';
import type { DirEntry, ExecOutput, ToolErrorCode, ToolHost, ToolResult } from './tool-host.ts';

export const MAX_TOOL_OUTPUT_BYTES = 64 * 1024;
export const MAX_READ_BYTES = 64 * 1024;
export const KILL_GRACE_MS = 2_000;

const fail = (code: ToolErrorCode, message: string) => ({ ok: false as const, code, message });

function fsError(e: unknown, what: string) {
  const err = e as NodeJS.ErrnoException;
  const map: Record<string, ToolErrorCode> = {
    ENOENT: 'not_found',
    EACCES: 'permission_denied',
    EPERM: 'permission_denied',
    EISDIR: 'is_directory',
    ENOTDIR: 'not_directory',
    EEXIST: 'already_exists',
  };
  return fail(map[err.code ?? ''] ?? 'unknown', `${what}: ${err.code ?? ''} ${err.message}`.trim());
}

/**
 * Runs tools on this machine. Paths must lie inside `roots` (after realpath of the nearest
 * existing ancestor), mirroring the device executor's containment; commands run in their own
 * process group so a timeout, an abort or close() kills grandchildren too.
 */
export function makeLocalToolHost(options: { roots: readonly string[]; shell?: string }): ToolHost {
  const shell = options.shell ?? process.env.SHELL ?? '/bin/sh';
  const running = new Set<{ child: ChildProcess; done: Promise<void> }>();
  let closed = false;

  async function contained(p: string): Promise<ToolResult<string>> {
    if (!path.isAbsolute(p)) return fail('invalid', `not an absolute path: ${p}`);
    let probe = path.normalize(p);
    let rest = '';
    for (;;) {
      try {
        const real = await realpath(probe);
        const full = rest === '' ? real : path.join(real, rest);
        return options.roots.some((r) => isInside(full, r))
          ? { ok: true, value: full }
          : fail('permission_denied', `outside the allowed folders: ${p}`);
      } catch {
        const parent = path.dirname(probe);
        if (parent === probe) return fail('not_found', `no such path: ${p}`);
        rest = rest === '' ? path.basename(probe) : path.join(path.basename(probe), rest);
        probe = parent;
      }
    }
  }

  const killGroup = (child: ChildProcess, signal: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // the group is already gone
    }
  };

  return {
    label: 'local',

    async exec({ command, cwd, timeoutMs, signal }) {
      const where = await contained(cwd);
      if (!where.ok) return where;
      if (closed) return fail('aborted', `the tool host is closed: ${command}`);
      return new Promise<ToolResult<ExecOutput>>((resolve) => {
        let child: ChildProcess;
        try {
          child = spawn(shell, ['-c', command], {
            cwd: where.value,
            detached: true,
            stdio: ['ignore', 'pipe', 'pipe'],
          });
        } catch (e) {
          resolve(fail('spawn_error', `cannot start ${shell}: ${(e as Error).message}`));
          return;
        }
        const out = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
        const size = { stdout: 0, stderr: 0 };
        const truncated = { stdout: false, stderr: false };
        for (const key of ['stdout', 'stderr'] as const) {
          child[key]!.on('data', (b: Buffer) => {
            const room = MAX_TOOL_OUTPUT_BYTES - size[key];
            if (room <= 0) {
              truncated[key] = true;
              return;
            }
            if (b.length > room) truncated[key] = true;
            const part = b.subarray(0, room);
            out[key].push(part);
            size[key] += part.length;
          });
        }
        let stopReason: 'timeout' | 'aborted' | null = null;
        let killTimer: NodeJS.Timeout | undefined;
        const stop = (why: 'timeout' | 'aborted') => {
          if (stopReason !== null) return;
          stopReason = why;
          killGroup(child, 'SIGTERM');
          killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_GRACE_MS);
        };
        const timer =
          timeoutMs !== undefined ? setTimeout(() => stop('timeout'), timeoutMs) : undefined;
        const onAbort = () => stop('aborted');
        signal?.addEventListener('abort', onAbort, { once: true });
        if (signal?.aborted) onAbort();

        let exit: { code: number | null; signal: NodeJS.Signals | null } = {
          code: null,
          signal: null,
        };
        let spawnError: Error | null = null;
        let settle!: () => void;
        const entry = { child, done: new Promise<void>((r) => (settle = r)) };
        running.add(entry);
        child.on('error', (e) => (spawnError = e));
        // The shell is gone; whatever it left in its group would hold the pipes open forever.
        child.on('exit', (code, sig) => {
          exit = { code, signal: sig };
          killGroup(child, 'SIGKILL');
        });
        child.on('close', () => {
          clearTimeout(timer);
          clearTimeout(killTimer);
          signal?.removeEventListener('abort', onAbort);
          running.delete(entry);
          settle();
          if (spawnError !== null) {
            const code = (spawnError as NodeJS.ErrnoException).code;
            resolve(
              fail(
                code === 'ENOENT' ? 'shell_unavailable' : 'spawn_error',
                `cannot start ${shell}: ${spawnError.message}`,
              ),
            );
          } else if (stopReason === 'timeout') {
            resolve(fail('timeout', `killed after ${timeoutMs} ms: ${command}`));
          } else if (stopReason === 'aborted') {
            resolve(fail('aborted', `cancelled: ${command}`));
          } else {
            resolve({
              ok: true,
              value: {
                exitCode: exit.code,
                ...(exit.signal !== null ? { signal: exit.signal } : {}),
                stdout: Buffer.concat(out.stdout).toString('utf8'),
                stderr: Buffer.concat(out.stderr).toString('utf8'),
                truncated,
              },
            });
          }
        });
      });
    },

    async readTextFile(p) {
      const where = await contained(p);
      if (!where.ok) return where;
      try {
        const fh = await open(where.value, 'r');
        try {
          const info = await fh.stat();
          if (info.isDirectory()) return fail('is_directory', `is a folder: ${p}`);
          const buf = Buffer.alloc(Math.min(info.size, MAX_READ_BYTES));
          const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
          return {
            ok: true,
            value: {
              text: buf.subarray(0, bytesRead).toString('utf8'),
              truncated: info.size > bytesRead,
            },
          };
        } finally {
          await fh.close();
        }
      } catch (e) {
        return fsError(e, `read ${p}`);
      }
    },

    async writeFile(p, content) {
      const where = await contained(p);
      if (!where.ok) return where;
      const target = where.value;
      let created = false;
      try {
        const existing = await lstat(target).catch(() => null);
        if (existing?.isDirectory()) return fail('is_directory', `is a folder: ${p}`);
        created = existing === null;
        // Temp file in the target's folder, fsync, rename: the target is old or new, never partial.
        const tmp = path.join(
          path.dirname(target),
          `.${path.basename(target)}.${randomBytes(4).toString('hex')}.tmp`,
        );
        const fh = await open(tmp, 'wx', 0o644);
        try {
          await fh.writeFile(content, 'utf8');
          await fh.sync();
        } finally {
          await fh.close();
        }
        try {
          await rename(tmp, target);
        } catch (e) {
          await unlink(tmp).catch(() => undefined);
          throw e;
        }
        return { ok: true, value: { canonicalPath: await realpath(target), created } };
      } catch (e) {
        return fsError(e, `write ${p}`);
      }
    },

    async createDir(p) {
      const where = await contained(p);
      if (!where.ok) return where;
      try {
        // Only the missing part below the deepest folder that exists: containment resolved that
        // folder's real path, so nothing is created through a symlink out of the roots.
        await mkdir(where.value, { recursive: true, mode: 0o755 });
        return { ok: true, value: undefined };
      } catch (e) {
        return fsError(e, `create folder ${p}`);
      }
    },

    async listDir(p) {
      const where = await contained(p);
      if (!where.ok) return where;
      try {
        const names = await readdir(where.value, { withFileTypes: true });
        const entries: DirEntry[] = [];
        for (const d of names.sort((a, b) => a.name.localeCompare(b.name))) {
          const kind = d.isFile()
            ? 'file'
            : d.isDirectory()
              ? 'dir'
              : d.isSymbolicLink()
                ? 'symlink'
                : 'other';
          const size =
            kind === 'file'
              ? ((await stat(path.join(where.value, d.name)).catch(() => null))?.size ?? 0)
              : 0;
          entries.push({ name: d.name, kind, size });
        }
        return { ok: true, value: entries };
      } catch (e) {
        return fsError(e, `list ${p}`);
      }
    },

    async close() {
      closed = true;
      for (const r of running) {
        killGroup(r.child, 'SIGKILL');
      }
      await Promise.all([...running].map((r) => r.done));
    },
  };
}
