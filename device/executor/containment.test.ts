// H7a through the lane: every file instruction the executor implements, against real symbolic
// links into /proc and /dev and links whose targets are missing. The executor runs in this
// process, so `/proc/self/fd/N` is the executor's own descriptor — the exact case an outside
// audit used to read a deleted, still-open file through the workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  readSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { DeviceInstructionKind } from '../wire/index.ts';
import { collect, makeHarness, type Harness } from './test-support/harness.ts';

let h: Harness;
let fd: number;
let outside: string;
const SECRET = 'deleted-but-open secret 7c1f';

beforeAll(async () => {
  h = await makeHarness();
  await h.online();
  outside = h.tmp.make('dsh-out-');
  const secretPath = join(outside, 'secret.txt');
  writeFileSync(secretPath, SECRET);
  fd = openSync(secretPath, 'r');
  unlinkSync(secretPath); // deleted, still open: realpath of its /proc link fails
  const ws = h.workspace;
  symlinkSync(`/proc/self/fd/${fd}`, join(ws, 'fd-link'));
  symlinkSync(`/dev/fd/${fd}`, join(ws, 'devfd-link'));
  symlinkSync('/proc', join(ws, 'proc-link'));
  symlinkSync('/dev/zero', join(ws, 'zero-link'));
  symlinkSync(join(outside, 'not-yet'), join(ws, 'dangle-dir'));
  symlinkSync(join(outside, 'not-yet.txt'), join(ws, 'dangle-file'));
  symlinkSync('loop-b', join(ws, 'loop-a'));
  symlinkSync('loop-a', join(ws, 'loop-b'));
  execFileSync('mkfifo', [join(ws, 'fifo')]);
});

afterAll(async () => {
  closeSync(fd);
  await h.close();
});

const run = (kind: DeviceInstructionKind, args: Record<string, unknown>, content?: Buffer) =>
  collect(
    h.lane.dispatch(h.deviceId, {
      kind,
      args,
      timeoutMs: 10_000,
      ...(content ? { content } : {}),
    }),
  );

const ws = (p: string) => join(h.workspace, p);
const refused = { ok: false, errorCode: 'permission_denied' };

/** The deleted file is untouched: its bytes, read through the test's own descriptor. */
const secretIntact = () => {
  const buf = Buffer.alloc(100);
  const n = readSync(fd, buf, 0, 100, 0);
  return buf.subarray(0, n).toString() === SECRET;
};

describe('H7a: links into /proc and /dev, and links to missing targets', () => {
  it('H7a: reads through ws/fd-link → /proc/self/fd/N (a deleted, open file) are refused and send nothing', async () => {
    for (const path of [ws('fd-link'), ws('devfd-link')]) {
      for (const kind of ['readTextFile', 'readBinaryFile', 'readTextLines'] as const) {
        const r = await run(kind, { path, ...(kind === 'readTextLines' ? { limit: 5 } : {}) });
        expect(r.outcome, `${kind} ${path}`).toMatchObject(refused);
        expect(r.items).toEqual([]);
      }
    }
    const z = await run('readBinaryFile', { path: ws('zero-link') });
    expect(z.outcome).toMatchObject(refused);
  });

  it('H7a: writes through the /proc link are refused and the open file keeps its bytes', async () => {
    for (const kind of ['writeFile', 'appendFile'] as const) {
      const r = await run(kind, { path: ws('fd-link') }, Buffer.from('overwritten'));
      expect(r.outcome, kind).toMatchObject(refused);
    }
    // writeFileExclusive acts on the entry itself: the link exists, so nothing is written.
    const x = await run('writeFileExclusive', { path: ws('fd-link') }, Buffer.from('x'));
    expect(x.outcome).toMatchObject({ ok: false, errorCode: 'already_exists' });
    const under = await run('writeFile', { path: ws('proc-link/self/environ') }, Buffer.from('x'));
    expect(under.outcome).toMatchObject(refused);
    expect(secretIntact()).toBe(true);
    expect(readlinkSync(ws('fd-link'))).toBe(`/proc/self/fd/${fd}`);
  });

  it('H7a: listDir into /proc through a link is refused; the link itself is listed as a link', async () => {
    for (const path of [ws('proc-link'), ws('proc-link/self/fd'), ws('fd-link')]) {
      expect((await run('listDir', { path })).outcome, path).toMatchObject(refused);
    }
    const list = (await run('listDir', { path: h.workspace })).outcome as {
      entries: { path: string; kind: string }[];
    };
    expect(list.entries.find((e) => e.path === ws('fd-link'))?.kind).toBe('symlink');
  });

  it('H7a: fileInfo, exists and readLink answer about the link itself, truthfully, and refuse what lies behind it', async () => {
    expect((await run('fileInfo', { path: ws('fd-link') })).outcome).toMatchObject({
      ok: true,
      info: { kind: 'symlink' },
    });
    expect((await run('exists', { path: ws('fd-link') })).outcome).toEqual({
      ok: true,
      kind: 'stat',
      existsValue: true,
    });
    expect((await run('readLink', { path: ws('fd-link') })).outcome).toEqual({
      ok: true,
      kind: 'stat',
      linkTarget: `/proc/self/fd/${fd}`,
    });
    for (const kind of ['fileInfo', 'exists', 'readLink'] as const) {
      const r = await run(kind, { path: ws(`proc-link/self/fd/${fd}`) });
      expect(r.outcome, kind).toMatchObject(refused);
    }
    expect((await run('canonicalPath', { path: ws('fd-link') })).outcome).toMatchObject(refused);
    expect((await run('canonicalPath', { path: ws('proc-link') })).outcome).toMatchObject(refused);
  });

  it('H7a: createDir and remove refuse paths under a /proc link; removing the link removes only the link', async () => {
    expect(
      (await run('createDir', { path: ws('proc-link/self/x'), recursive: true })).outcome,
    ).toMatchObject(refused);
    expect((await run('remove', { path: ws('proc-link/self/fd') })).outcome).toMatchObject(refused);
    symlinkSync(`/proc/self/fd/${fd}`, ws('fd-link-2'));
    expect((await run('remove', { path: ws('fd-link-2') })).outcome).toEqual({
      ok: true,
      kind: 'void',
    });
    expect(existsSync(ws('fd-link-2'))).toBe(false);
    expect(secretIntact()).toBe(true);
  });

  it('H7a: a command cannot be given a working directory through a /proc link', async () => {
    const r = await collect(
      h.lane.dispatch(h.deviceId, {
        kind: 'exec',
        args: { command: 'pwd' },
        cwd: ws('proc-link/self/cwd'),
      }),
    );
    expect(r.outcome).toMatchObject(refused);
    expect(r.items).toEqual([]);
  });

  it('H7a: a link to a missing target is judged where it leads: createDir and writes under it stay inside', async () => {
    const mk = await run('createDir', { path: ws('dangle-dir/sub'), recursive: true });
    expect(mk.outcome).toMatchObject(refused);
    expect(existsSync(join(outside, 'not-yet'))).toBe(false);
    const w = await run('writeFile', { path: ws('dangle-file') }, Buffer.from('x'));
    expect(w.outcome).toMatchObject(refused);
    expect(existsSync(join(outside, 'not-yet.txt'))).toBe(false);
    const under = await run('writeFile', { path: ws('dangle-dir/f') }, Buffer.from('x'));
    expect(under.outcome).toMatchObject(refused);
    // The link itself is an entry of the workspace: exists says so, readLink names its target.
    expect((await run('exists', { path: ws('dangle-dir') })).outcome).toMatchObject({
      existsValue: true,
    });
    expect(lstatSync(ws('dangle-dir')).isSymbolicLink()).toBe(true);
  });

  it('H7a: a link loop is invalid, and a FIFO is refused at once instead of hanging the read', async () => {
    expect((await run('readTextFile', { path: ws('loop-a') })).outcome).toMatchObject({
      ok: false,
      errorCode: 'invalid',
      message: expect.stringContaining('too many levels'),
    });
    expect((await run('readTextFile', { path: ws('fifo') })).outcome).toMatchObject({
      ok: false,
      errorCode: 'invalid',
      message: expect.stringContaining('not a regular file'),
    });
    mkdirSync(ws('plain'));
    writeFileSync(ws('plain/f'), 'still served');
    symlinkSync('plain', ws('plain-link'));
    const ok = await run('readTextFile', { path: ws('plain-link/f') });
    expect(ok.outcome).toEqual({ ok: true, kind: 'read' });
  });
});
