import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { realTimers } from '../../timers.ts';
import { makeChunker, type OutChunk } from '../exec/chunker.ts';
import { openFlow } from '../exec/flow.ts';
import { makeTmpDirs } from '../../../testkit/tmp.ts';
import { createDir, createTempDir, createTempFile, remove } from './mutate-ops.ts';
import { runRead } from './read-ops.ts';
import { walkPath } from './walk.ts';
import { canonicalPath, exists, fileInfo, listDir, readLink } from './stat-ops.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());

const read = async (
  path: string,
  lines?: { offset: number; limit: number | undefined },
  maxReadBytes = 1 << 24,
) => {
  const chunks: OutChunk[] = [];
  const chunker = makeChunker({
    maxBytesPerStream: 1 << 30,
    emit: (c) => chunks.push(c),
    clock: realTimers,
    coalesceMs: 0,
  });
  const outcome = await runRead({
    path,
    real: path,
    maxReadBytes,
    chunker,
    flow: openFlow,
    ...(lines ? { lines } : {}),
  }).done;
  const data = Buffer.concat(
    chunks.map((c) => (c.kind === 'data' ? Buffer.from(c.b64, 'base64') : Buffer.alloc(0))),
  );
  return { outcome, chunks, data };
};

describe('governance reads answer truthfully (§6.5)', () => {
  it('exists: true for files, dirs and dangling symlinks; false for missing; never guessed', async () => {
    const d = tmp.make();
    writeFileSync(join(d, 'f'), 'x');
    symlinkSync(join(d, 'nowhere'), join(d, 'dangling'));
    expect(await exists(join(d, 'f'))).toEqual({ ok: true, kind: 'stat', existsValue: true });
    expect(await exists(d)).toEqual({ ok: true, kind: 'stat', existsValue: true });
    expect(await exists(join(d, 'dangling'))).toEqual({
      ok: true,
      kind: 'stat',
      existsValue: true,
    });
    expect(await exists(join(d, 'missing'))).toEqual({
      ok: true,
      kind: 'stat',
      existsValue: false,
    });
    expect(await exists(join(d, 'f', 'under-a-file'))).toEqual({
      ok: true,
      kind: 'stat',
      existsValue: false,
    });
  });

  it('canonicalPath resolves every symlink; a missing path is not_found, not a lexical guess', async () => {
    const d = tmp.make();
    mkdirSync(join(d, 'real'));
    symlinkSync(join(d, 'real'), join(d, 'alias'));
    const walked = async (p: string) => {
      const w = await walkPath(p, true);
      return w.ok ? w.real : '';
    };
    expect(await canonicalPath(join(d, 'alias'), await walked(join(d, 'alias')))).toEqual({
      ok: true,
      kind: 'stat',
      canonicalPath: join(d, 'real'),
    });
    expect(await canonicalPath(join(d, 'missing'), await walked(join(d, 'missing')))).toMatchObject(
      { ok: false, errorCode: 'not_found' },
    );
    // H7a: a walked path that has become a link since the walk is refused, never followed.
    expect(await canonicalPath(join(d, 'alias'), join(d, 'alias'))).toMatchObject({
      ok: false,
      errorCode: 'permission_denied',
    });
  });

  it('fileInfo reports the entry itself (lstat), integers only', async () => {
    const d = tmp.make();
    writeFileSync(join(d, 'f'), 'abc', { mode: 0o640 });
    symlinkSync('f', join(d, 'l'));
    const f = await fileInfo(join(d, 'f'));
    expect(f).toMatchObject({
      ok: true,
      kind: 'stat',
      info: { path: join(d, 'f'), kind: 'file', size: 3, mode: 0o640 },
    });
    expect(Number.isSafeInteger((f as { info: { mtimeMs: number } }).info.mtimeMs)).toBe(true);
    expect(await fileInfo(join(d, 'l'))).toMatchObject({ info: { kind: 'symlink' } });
    expect(await fileInfo(d)).toMatchObject({ info: { kind: 'dir' } });
    expect(await fileInfo(join(d, 'nope'))).toMatchObject({ ok: false, errorCode: 'not_found' });
  });

  it('readLink answers one unresolved hop, null for a non-symlink, not_found for nothing', async () => {
    const d = tmp.make();
    writeFileSync(join(d, 'f'), '');
    symlinkSync('../somewhere/else', join(d, 'l'));
    expect(await readLink(join(d, 'l'))).toEqual({
      ok: true,
      kind: 'stat',
      linkTarget: '../somewhere/else',
    });
    expect(await readLink(join(d, 'f'))).toEqual({ ok: true, kind: 'stat', linkTarget: null });
    expect(await readLink(join(d, 'x'))).toMatchObject({ ok: false, errorCode: 'not_found' });
  });

  it('listDir lists entries sorted (empty folder → empty list); a file is not_directory', async () => {
    const d = tmp.make();
    expect(await listDir(d)).toEqual({ ok: true, kind: 'stat', entries: [] });
    writeFileSync(join(d, 'b'), '');
    mkdirSync(join(d, 'a'));
    const out = await listDir(d);
    expect(
      (out as { entries: { path: string; kind: string }[] }).entries.map((e) => [e.path, e.kind]),
    ).toEqual([
      [join(d, 'a'), 'dir'],
      [join(d, 'b'), 'file'],
    ]);
    expect(await listDir(join(d, 'b'))).toMatchObject({ ok: false, errorCode: 'not_directory' });
  });
});

describe('reads (§3.1)', () => {
  it('readBinaryFile streams every byte as data chunks and answers read', async () => {
    const d = tmp.make();
    const content = Buffer.alloc(200_000, 7);
    content[199_999] = 1;
    writeFileSync(join(d, 'f'), content);
    const { outcome, chunks, data } = await read(join(d, 'f'));
    expect(outcome).toEqual({ ok: true, kind: 'read' });
    expect(data.equals(content)).toBe(true);
    expect(chunks.every((c) => c.kind === 'data')).toBe(true);
    chunks.forEach((c, i) => expect(c.seq).toBe(i));
  });

  it('an empty file is a read with no chunks; a folder is is_directory; over the cap is invalid', async () => {
    const d = tmp.make();
    writeFileSync(join(d, 'e'), '');
    expect(await read(join(d, 'e'))).toMatchObject({
      outcome: { ok: true, kind: 'read' },
      chunks: [],
    });
    expect((await read(d)).outcome).toMatchObject({ ok: false, errorCode: 'is_directory' });
    writeFileSync(join(d, 'big'), Buffer.alloc(100));
    expect((await read(join(d, 'big'), undefined, 10)).outcome).toMatchObject({
      ok: false,
      errorCode: 'invalid',
    });
  });

  it('readTextLines honours limit and offset, across chunk boundaries', async () => {
    const d = tmp.make();
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i}`);
    writeFileSync(join(d, 't'), `${lines.join('\n')}\n`);
    expect((await read(join(d, 't'), { offset: 0, limit: 3 })).data.toString()).toBe(
      'line 0\nline 1\nline 2\n',
    );
    expect((await read(join(d, 't'), { offset: 15_000, limit: 2 })).data.toString()).toBe(
      'line 15000\nline 15001\n',
    );
    expect((await read(join(d, 't'), { offset: 19_999, limit: undefined })).data.toString()).toBe(
      'line 19999\n',
    );
    expect((await read(join(d, 't'), { offset: 0, limit: 0 })).data.length).toBe(0);
  });
});

describe('mutations (§3.1)', () => {
  it('createDir (recursive or not), remove (file, empty dir, recursive), roots never removed', async () => {
    const d = tmp.make();
    expect(await createDir(join(d, 'a/b/c'), join(d, 'a/b/c'), true)).toEqual({
      ok: true,
      kind: 'void',
    });
    expect(await createDir(join(d, 'a/b/c'), join(d, 'a/b/c'), true)).toEqual({
      ok: true,
      kind: 'void',
    });
    expect(await createDir(join(d, 'a/b/c'), join(d, 'a/b/c'), false)).toMatchObject({
      ok: false,
      errorCode: 'already_exists',
    });
    expect(await createDir(join(d, 'x/y'), join(d, 'x/y'), false)).toMatchObject({
      ok: false,
      errorCode: 'not_found',
    });
    writeFileSync(join(d, 'a/f'), '');
    expect(await remove(join(d, 'a/f'), join(d, 'a/f'), false, false)).toEqual({
      ok: true,
      kind: 'void',
    });
    expect(await remove(join(d, 'a'), join(d, 'a'), false, false)).toMatchObject({
      ok: false,
      errorCode: 'invalid',
    });
    expect(await remove(join(d, 'a'), join(d, 'a'), true, false)).toEqual({
      ok: true,
      kind: 'void',
    });
    expect(existsSync(join(d, 'a'))).toBe(false);
    expect(await remove(join(d, 'gone'), join(d, 'gone'), false, false)).toMatchObject({
      ok: false,
      errorCode: 'not_found',
    });
    expect(await remove(d, d, true, true)).toMatchObject({
      ok: false,
      errorCode: 'permission_denied',
    });
  });

  it('remove of a symlink removes the link, never what it points to', async () => {
    const d = tmp.make();
    mkdirSync(join(d, 'target'));
    writeFileSync(join(d, 'target/keep'), 'k');
    symlinkSync(join(d, 'target'), join(d, 'l'));
    expect(await remove(join(d, 'l'), join(d, 'l'), true, false)).toEqual({
      ok: true,
      kind: 'void',
    });
    expect(readFileSync(join(d, 'target/keep'), 'utf8')).toBe('k');
  });

  it('createTempDir / createTempFile create inside the temp root and answer the created path', async () => {
    const root = tmp.make();
    const a = await createTempDir(root, 'job-');
    expect(a).toMatchObject({ ok: true, kind: 'write', created: true });
    const ap = (a as { canonicalPath: string }).canonicalPath;
    expect(ap.startsWith(`${root}/job-`) && statSync(ap).isDirectory()).toBe(true);
    const f = await createTempFile(root, 'p-', '.txt');
    const fp = (f as { canonicalPath: string }).canonicalPath;
    expect(fp).toMatch(new RegExp(`^${root}/p-[0-9a-f]{16}\\.txt$`));
    expect(statSync(fp).mode & 0o777).toBe(0o600);
    expect(await createTempDir(root, '../escape')).toMatchObject({
      ok: false,
      errorCode: 'invalid',
    });
    expect(await createTempFile(root, 'ok', 'a/b')).toMatchObject({
      ok: false,
      errorCode: 'invalid',
    });
  });
});
