import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isGroupGone, isProcessAlive } from './proc/proc-stat.ts';
import { collect, makeHarness, stdoutOf, type Harness } from './test-support/harness.ts';
import { parseFrame } from './test-support/fault-proxy.ts';
import type { StreamItem } from '../lane/index.ts';
import { SUPPORTED_KINDS } from './tasks.ts';

let h: Harness;
afterEach(async () => h?.close());

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('handshake and declared faces (§1.3–§1.5, §3.2)', () => {
  it('§1.3/§1.5: the signed hello is accepted, generationAck follows, supports is honest and the same on every connection', async () => {
    h = await makeHarness();
    await h.online();
    const hellos = () =>
      h.proxy.seen.filter((f) => f.dir === 'up' && parseFrame(f).t === 'hello').map(parseFrame);
    expect(hellos()).toHaveLength(1);
    const hello = hellos()[0] as Record<string, unknown>;
    expect(hello.supports).toEqual([...SUPPORTED_KINDS]);
    expect(hello.supports).not.toContain('writeFileGuarded');
    expect(hello.supports).not.toContain('statBatch');
    expect(hello.workspaceRoot).toBe(h.workspace);
    expect(Buffer.byteLength(JSON.stringify(hello))).toBeLessThanOrEqual(4096);
    const since = h.events.length;
    h.proxy.cut();
    await h.event((e): e is Extract<typeof e, { type: 'active' }> => e.type === 'active', since);
    expect(hellos()).toHaveLength(2);
    expect(hellos()[1]?.supports).toEqual(hello.supports);
    expect(hellos()[1]?.epoch).toBe(hello.epoch); // same process, same epoch (R2)
  });

  it('§1.2: a fresh epoch per process start', async () => {
    h = await makeHarness();
    const a = await h.online();
    await a.stop('shutdown');
    const b = await h.online();
    expect(b.epoch).not.toBe(a.epoch);
    expect(b.epoch).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
  });
});

describe('instructions through the lane (§3, §4)', () => {
  it('§4: exec with no output answers exitCode with exactly one exit chunk', async () => {
    h = await makeHarness();
    await h.online();
    const r = await collect(
      h.lane.dispatch(h.deviceId, { kind: 'exec', args: { command: 'exit 7' } }),
    );
    expect(r.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 7 });
    expect(r.items).toEqual([{ kind: 'exit', exitCode: 7 }]);
  });

  it('§4: execStream of 5 MiB arrives whole (SHA-256 equal), stderr apart, cwd and shellEnv applied', async () => {
    h = await makeHarness();
    await h.online();
    writeFileSync(join(h.workspace, 'blob'), Buffer.alloc(5 * 1024 * 1024, 'z'));
    const r = await collect(
      h.lane.dispatch(h.deviceId, {
        kind: 'execStream',
        args: { command: 'cat blob; echo "$MARK" >&2' },
        cwd: h.workspace,
        shellEnv: { MARK: 'env-ok' },
      }),
    );
    expect(r.outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    expect(sha(stdoutOf(r.items))).toBe(sha(readFileSync(join(h.workspace, 'blob'))));
    const stderr = Buffer.concat(
      r.items.flatMap((i) => (i.kind === 'stderr' ? [i.data] : [])),
    ).toString();
    expect(stderr).toBe('env-ok\n');
  });

  it('§3.1: every declared file instruction round-trips through the lane', async () => {
    h = await makeHarness();
    await h.online();
    const d = (
      kind: Parameters<typeof h.lane.dispatch>[1]['kind'],
      args: Record<string, unknown>,
      content?: Uint8Array,
    ) => collect(h.lane.dispatch(h.deviceId, { kind, args, ...(content ? { content } : {}) }));
    const p = join(h.workspace, 'notes.txt');
    const body = Buffer.from('one\ntwo\nthree\n');
    const w = await d('writeFile', { path: p }, body);
    expect(w.outcome).toMatchObject({ ok: true, kind: 'write', canonicalPath: p, created: true });
    expect(readFileSync(p, 'utf8')).toBe('one\ntwo\nthree\n');
    expect((await d('appendFile', { path: p }, Buffer.from('four\n'))).outcome).toEqual({
      ok: true,
      kind: 'void',
    });
    const read = await d('readTextFile', { path: p });
    expect(
      Buffer.concat(
        read.items.map((i) => (i.kind === 'data' ? i.data : Buffer.alloc(0))),
      ).toString(),
    ).toBe('one\ntwo\nthree\nfour\n');
    const lines = await d('readTextLines', { path: p, limit: 2 });
    expect(
      Buffer.concat(
        lines.items.map((i) => (i.kind === 'data' ? i.data : Buffer.alloc(0))),
      ).toString(),
    ).toBe('one\ntwo\n');
    const bin = await d('readBinaryFile', { path: p });
    expect(bin.outcome).toEqual({ ok: true, kind: 'read' });
    expect((await d('exists', { path: p })).outcome).toEqual({
      ok: true,
      kind: 'stat',
      existsValue: true,
    });
    expect((await d('exists', { path: join(h.workspace, 'nope') })).outcome).toEqual({
      ok: true,
      kind: 'stat',
      existsValue: false,
    });
    expect((await d('fileInfo', { path: p })).outcome).toMatchObject({
      ok: true,
      kind: 'stat',
      info: { kind: 'file', size: 19 },
    });
    symlinkSync('notes.txt', join(h.workspace, 'link'));
    expect((await d('readLink', { path: join(h.workspace, 'link') })).outcome).toEqual({
      ok: true,
      kind: 'stat',
      linkTarget: 'notes.txt',
    });
    expect((await d('canonicalPath', { path: join(h.workspace, 'link') })).outcome).toEqual({
      ok: true,
      kind: 'stat',
      canonicalPath: p,
    });
    expect((await d('createDir', { path: join(h.workspace, 'a/b') })).outcome).toEqual({
      ok: true,
      kind: 'void',
    });
    const list = (await d('listDir', { path: h.workspace })).outcome as {
      entries: { path: string }[];
    };
    expect(list.entries.map((e) => e.path)).toEqual(
      ['a', 'link', 'notes.txt'].map((n) => join(h.workspace, n)),
    );
    expect((await d('remove', { path: join(h.workspace, 'a'), recursive: true })).outcome).toEqual({
      ok: true,
      kind: 'void',
    });
    const ex1 = await d('writeFileExclusive', { path: join(h.workspace, 'x') }, Buffer.from('1'));
    const ex2 = await d('writeFileExclusive', { path: join(h.workspace, 'x') }, Buffer.from('2'));
    expect(ex1.outcome).toMatchObject({ ok: true, kind: 'write', created: true });
    expect(ex2.outcome).toMatchObject({ ok: false, errorCode: 'already_exists' });
    const td = (await d('createTempDir', { prefix: 'job-' })).outcome as { canonicalPath: string };
    expect(td.canonicalPath.startsWith(`${h.tempRoot}/job-`)).toBe(true);
    const tf = (await d('createTempFile', { suffix: '.log' })).outcome as { canonicalPath: string };
    expect(existsSync(tf.canonicalPath)).toBe(true);
  });

  it('X5: concurrent writeFileExclusive to one path through the lane has exactly one winner', async () => {
    h = await makeHarness();
    await h.online();
    const p = join(h.workspace, 'race.txt');
    const outcomes = await Promise.all(
      [0, 1, 2, 3].map(
        (i) =>
          h.lane.dispatch(h.deviceId, {
            kind: 'writeFileExclusive',
            args: { path: p },
            content: Buffer.from(`writer ${i}`),
          }).outcome,
      ),
    );
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok && o.errorCode === 'already_exists')).toHaveLength(3);
    expect(readFileSync(p, 'utf8')).toBe(`writer ${outcomes.findIndex((o) => o.ok)}`);
  });

  it('§2.4 stage 0: an answer too big for one frame fails specifically and keeps the connection', async () => {
    h = await makeHarness();
    await h.online();
    const dir = join(h.workspace, 'many');
    mkdirSync(dir);
    for (let i = 0; i < 6000; i += 1) writeFileSync(join(dir, `${'n'.repeat(120)}-${i}`), '');
    const r = await collect(h.lane.dispatch(h.deviceId, { kind: 'listDir', args: { path: dir } }));
    expect(r.outcome).toMatchObject({
      ok: false,
      errorCode: 'invalid',
      message: expect.stringContaining('one frame'),
    });
    expect(h.events.filter((e) => e.type === 'disconnected')).toEqual([]);
    expect(
      (await h.lane.dispatch(h.deviceId, { kind: 'exists', args: { path: dir } }).outcome).ok,
    ).toBe(true);
  });

  it('§6.6/X2: outside the roots and the key folder are permission_denied; the target is never redirected', async () => {
    h = await makeHarness();
    await h.online();
    const outside = h.tmp.make('dsh-out-');
    symlinkSync(outside, join(h.workspace, 'escape'));
    for (const args of [
      { path: join(outside, 'f') },
      { path: join(h.keyDir, 'device-key.pem') },
      { path: join(h.workspace, 'escape/f') },
    ]) {
      const r = await collect(h.lane.dispatch(h.deviceId, { kind: 'readTextFile', args }));
      expect(r.outcome).toMatchObject({ ok: false, errorCode: 'permission_denied' });
      expect(r.items).toEqual([]);
    }
    const w = await collect(
      h.lane.dispatch(h.deviceId, {
        kind: 'writeFile',
        args: { path: join(h.workspace, 'escape/new') },
        content: Buffer.from('x'),
      }),
    );
    expect(w.outcome).toMatchObject({ ok: false, errorCode: 'permission_denied' });
    expect(existsSync(join(outside, 'new'))).toBe(false);
    const x = await collect(
      h.lane.dispatch(h.deviceId, { kind: 'exec', args: { command: 'true' }, cwd: outside }),
    );
    expect(x.outcome).toMatchObject({ ok: false, errorCode: 'permission_denied' });
  });

  it('§3.4: a payload whose bytes do not match sha256 fails the instruction and leaves the target untouched', async () => {
    h = await makeHarness();
    await h.online();
    const p = join(h.workspace, 'keep.txt');
    writeFileSync(p, 'original');
    // Corrupt the payload chunk in flight: same length, other bytes — only the digest can tell.
    h.proxy.setRule((dir, text) => {
      if (dir !== 'down' || !text.includes('"part":"chunk"')) return 'pass';
      const f = JSON.parse(text) as { dataB64: string };
      const forged = Buffer.alloc(Buffer.from(f.dataB64, 'base64').length, 'X').toString('base64');
      return { replace: JSON.stringify({ ...f, dataB64: forged }) };
    });
    const r = await collect(
      h.lane.dispatch(h.deviceId, {
        kind: 'writeFile',
        args: { path: p },
        content: Buffer.from('replacement'),
      }),
    );
    expect(r.outcome).toMatchObject({
      ok: false,
      errorCode: 'invalid',
      message: expect.stringContaining('sha256'),
    });
    expect(readFileSync(p, 'utf8')).toBe('original');
  });

  it('§3.4: a payload shorter than contentLen fails the instruction and leaves the target untouched', async () => {
    h = await makeHarness();
    await h.online();
    const p = join(h.workspace, 'keep.txt');
    writeFileSync(p, 'original');
    h.proxy.setRule((dir, text) =>
      dir === 'down' && text.includes('"part":"chunk"') ? 'drop' : 'pass',
    );
    const r = await collect(
      h.lane.dispatch(h.deviceId, {
        kind: 'writeFile',
        args: { path: p },
        content: Buffer.from('replacement'),
      }),
    );
    expect(r.outcome).toMatchObject({
      ok: false,
      errorCode: 'invalid',
      message: expect.stringContaining('contentLen'),
    });
    expect(readFileSync(p, 'utf8')).toBe('original');
  });
});

/** The number the command prints first (a pid it reports), from its live output. */
const firstNumberPrinted = (d: { output: { onChunk(fn: (i: StreamItem) => void): void } }) =>
  new Promise<number>((resolve) =>
    d.output.onChunk((i) => {
      if (i.kind === 'stdout') resolve(Number(i.data.toString()));
    }),
  );

describe('cancel and timeout kill the whole group (R11, R12, X3)', () => {
  it('R11: cancel kills grandchildren (sh -c "sleep 999 & sleep 999" leaves nothing) and answers killed', async () => {
    h = await makeHarness();
    await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: 'sleep 999 & echo $!; sleep 999 & echo $!; echo $$; wait' },
    });
    let text = '';
    const lines = new Promise<number[]>((resolve) =>
      d.output.onChunk((i) => {
        if (i.kind === 'stdout') text += i.data.toString();
        const got = text.split('\n').filter(Boolean);
        if (got.length >= 3) resolve(got.map(Number));
      }),
    );
    const pids = await lines;
    expect(pids.every((p) => isProcessAlive(p))).toBe(true);
    h.lane.cancel(d.instructionId);
    h.lane.cancel(d.instructionId);
    expect(await d.outcome).toEqual({ ok: true, kind: 'cancelled', state: 'killed' });
    expect(pids.some((p) => isProcessAlive(p))).toBe(false);
    expect(isGroupGone(pids[2] as number)).toBe(true);
  });

  it('R12: timeoutMs is enforced by the executor: timeout only once the group is gone', async () => {
    h = await makeHarness();
    await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'exec',
      args: { command: 'sleep 999 & echo $!; sleep 999' },
      timeoutMs: 400,
    });
    const r = await collect(d);
    expect(r.outcome).toMatchObject({ ok: false, errorCode: 'timeout' });
    const [pid] = stdoutOf(r.items).split('\n').map(Number);
    expect(isProcessAlive(pid as number)).toBe(false);
  });

  it("H7b: a `setsid` descendant holding the output: a 1.5 s timeoutMs answers timeout before the lane's backstop, and the descendant is gone", async () => {
    // The lane's own ceiling is timeoutMs + executionGraceMs: an executor answering later than
    // that is written off as outcome_unknown by the lane, which this test would see.
    h = await makeHarness({ executionGraceMs: 6000 });
    await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: 'setsid sleep 300 & echo $!; wait' },
      timeoutMs: 1500,
    });
    const pid = firstNumberPrinted(d);
    expect(await d.outcome).toMatchObject({ ok: false, errorCode: 'timeout' });
    expect(isProcessAlive(await pid)).toBe(false);
  });

  it('H7b: cancel of a command whose orphaned `setsid` grandchild holds the output answers killed within the cancel grace', async () => {
    h = await makeHarness({ cancelGraceMs: 6000 });
    await h.online();
    const d = h.lane.dispatch(h.deviceId, {
      kind: 'execStream',
      args: { command: "sh -c 'setsid sleep 300 & echo $!'; sleep 300" },
    });
    const pid = firstNumberPrinted(d);
    const escaped = await pid;
    h.lane.cancel(d.instructionId);
    expect(await d.outcome).toEqual({ ok: true, kind: 'cancelled', state: 'killed' });
    expect(isProcessAlive(escaped)).toBe(false);
  });
});
