import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { makeTmpDirs } from '../../../testkit/tmp.ts';
import { startWrite, type WriteMode } from './atomic-write.ts';
import { walkPath } from './walk.ts';
import { makeTempJournal, TEMP_NAME_PATTERN } from './temp-journal.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());

const limits = { maxWriteBytes: 1 << 24, minFreeBytes: 0 };
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const write = async (
  path: string,
  content: Buffer,
  mode: WriteMode = 'replace',
  tamper: { len?: number; sha?: string } = {},
) => {
  const journal = makeTempJournal(join(tmp.make(), 'temps'));
  const walked = await walkPath(path, mode !== 'exclusive');
  if (!walked.ok) throw new Error(`walk refused ${path}`);
  const args = {
    path,
    real: walked.real,
    finalLink: walked.finalLink,
    contentLen: tamper.len ?? content.length,
    sha256: tamper.sha ?? sha(content),
    mode,
  };
  const w = await startWrite(args, limits, journal);
  if ('ok' in w) return w;
  expect(w.begin(args.contentLen, args.sha256)).toBeNull();
  for (let off = 0; off < content.length; off += 1000) {
    const f = await w.chunk(off, content.subarray(off, off + 1000));
    if (f) {
      await w.abort();
      return f;
    }
  }
  return w.commit(args.contentLen, args.sha256);
};

/** startWrite's arguments for a plain path (no link on it: the walked path is the path). */
const plain = (path: string, contentLen: number, sha256: string) => ({
  path,
  real: path,
  finalLink: false,
  contentLen,
  sha256,
  mode: 'replace' as const,
});

const noTemps = (dir: string) =>
  expect(readdirSync(dir).filter((n) => TEMP_NAME_PATTERN.test(n))).toEqual([]);

describe('writes (§3.4, X4, X5)', () => {
  it('§3.4: writeFile creates the file and answers the real object (canonicalPath, inode, created)', async () => {
    const dir = tmp.make();
    const p = join(dir, 'a.txt');
    const outcome = await write(p, Buffer.from('hello'));
    expect(outcome).toEqual({
      ok: true,
      kind: 'write',
      canonicalPath: p,
      inode: String(statSync(p).ino),
      created: true,
    });
    expect(readFileSync(p, 'utf8')).toBe('hello');
    noTemps(dir);
  });

  it('§3.4: replacing keeps the old mode and reports created:false', async () => {
    const dir = tmp.make();
    const p = join(dir, 'a.sh');
    writeFileSync(p, 'old', { mode: 0o751 });
    expect(await write(p, Buffer.from('new'))).toMatchObject({ ok: true, created: false });
    expect(readFileSync(p, 'utf8')).toBe('new');
    expect(statSync(p).mode & 0o777).toBe(0o751);
  });

  it('§3.4: a wrong sha256 fails the whole instruction and leaves the target untouched, no temp file', async () => {
    const dir = tmp.make();
    const p = join(dir, 'a.txt');
    writeFileSync(p, 'old');
    const outcome = await write(p, Buffer.from('new content'), 'replace', {
      sha: sha(Buffer.from('other')),
    });
    expect(outcome).toMatchObject({ ok: false, errorCode: 'invalid' });
    expect(readFileSync(p, 'utf8')).toBe('old');
    noTemps(dir);
  });

  it('§3.4: a wrong length fails and leaves the target untouched', async () => {
    const dir = tmp.make();
    const p = join(dir, 'a.txt');
    writeFileSync(p, 'old');
    const content = Buffer.from('new content');
    expect(await write(p, content, 'replace', { len: content.length + 5 })).toMatchObject({
      ok: false,
      errorCode: 'invalid',
    });
    expect(await write(p, content, 'replace', { len: content.length - 1 })).toMatchObject({
      ok: false,
      errorCode: 'invalid',
    });
    expect(readFileSync(p, 'utf8')).toBe('old');
    noTemps(dir);
  });

  it('X5: writeFileExclusive fails already_exists when the target is there (even a dangling symlink)', async () => {
    const dir = tmp.make();
    writeFileSync(join(dir, 'f'), 'x');
    symlinkSync(join(dir, 'nowhere'), join(dir, 'l'));
    expect(await write(join(dir, 'f'), Buffer.from('y'), 'exclusive')).toMatchObject({
      ok: false,
      errorCode: 'already_exists',
    });
    expect(await write(join(dir, 'l'), Buffer.from('y'), 'exclusive')).toMatchObject({
      ok: false,
      errorCode: 'already_exists',
    });
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('x');
    noTemps(dir);
  });

  it('X5: the exclusive-create race has exactly one winner', async () => {
    const dir = tmp.make();
    const p = join(dir, 'race');
    const contents = Array.from({ length: 12 }, (_, i) => Buffer.from(`writer ${i}`));
    const outcomes = await Promise.all(contents.map((c) => write(p, c, 'exclusive')));
    const winners = outcomes.filter((o) => o.ok);
    expect(winners).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok && o.errorCode === 'already_exists')).toHaveLength(11);
    const won = outcomes.findIndex((o) => o.ok);
    expect(readFileSync(p, 'utf8')).toBe(`writer ${won}`);
    noTemps(dir);
  });

  it('appendFile appends atomically (old content then payload) and creates a missing file', async () => {
    const dir = tmp.make();
    const p = join(dir, 'log');
    writeFileSync(p, 'one\n', { mode: 0o640 });
    expect(await write(p, Buffer.from('two\n'), 'append')).toEqual({ ok: true, kind: 'void' });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\n');
    expect(statSync(p).mode & 0o777).toBe(0o640);
    expect(await write(join(dir, 'new'), Buffer.from('x'), 'append')).toEqual({
      ok: true,
      kind: 'void',
    });
    expect(readFileSync(join(dir, 'new'), 'utf8')).toBe('x');
    noTemps(dir);
  });

  it('a write through a symlink replaces the file it points to, and the receipt names that file', async () => {
    const dir = tmp.make();
    writeFileSync(join(dir, 'real'), 'old');
    symlinkSync('real', join(dir, 'link'));
    expect(await write(join(dir, 'link'), Buffer.from('new'))).toMatchObject({
      ok: true,
      canonicalPath: join(dir, 'real'),
    });
    expect(readFileSync(join(dir, 'real'), 'utf8')).toBe('new');
  });

  it('is_directory / not_found / the write cap are specific failures', async () => {
    const dir = tmp.make();
    expect(await write(dir, Buffer.from('x'))).toMatchObject({
      ok: false,
      errorCode: 'is_directory',
    });
    expect(await write(join(dir, 'no/such/x'), Buffer.from('x'))).toMatchObject({
      ok: false,
      errorCode: 'not_found',
    });
    const journal = makeTempJournal(join(tmp.make(), 't'));
    const big = await startWrite(
      plain(join(dir, 'b'), 100, 'a'.repeat(64)),
      { maxWriteBytes: 10, minFreeBytes: 0 },
      journal,
    );
    expect(big).toMatchObject({ ok: false, errorCode: 'invalid' });
  });

  it('X4: a write that would leave less than the free-space reserve is refused before any byte is written', async () => {
    const dir = tmp.make();
    const journal = makeTempJournal(join(tmp.make(), 't'));
    const w = await startWrite(
      plain(join(dir, 'f'), 3, sha(Buffer.from('abc'))),
      { maxWriteBytes: 1 << 20, minFreeBytes: Number.MAX_SAFE_INTEGER },
      journal,
    );
    expect(w).toMatchObject({
      ok: false,
      errorCode: 'unknown',
      message: expect.stringContaining('free space'),
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('X4: orphan temp files of a killed executor are swept at start', async () => {
    const dir = tmp.make();
    const state = join(tmp.make(), 'temps');
    const journal = makeTempJournal(state);
    const w = await startWrite(plain(join(dir, 'f'), 3, sha(Buffer.from('abc'))), limits, journal);
    expect('begin' in w).toBe(true);
    expect(readdirSync(dir).filter((n) => TEMP_NAME_PATTERN.test(n))).toHaveLength(1);
    writeFileSync(join(dir, '.user.dsh-notours.tmp'), 'keep'); // not our pattern: never touched
    // The executor "dies" here; a new one sweeps at start.
    expect(makeTempJournal(state).sweep()).toBe(1);
    noTemps(dir);
    expect(existsSync(join(dir, '.user.dsh-notours.tmp'))).toBe(true);
    expect(existsSync(join(dir, 'f'))).toBe(false);
  });
});
