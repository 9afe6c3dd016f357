import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isGroupGone, isProcessAlive } from '../proc/proc-stat.ts';
import { bytesOf, makeExecStarter, printed } from '../test-support/exec-run.ts';
import { makeManualTimers } from '../../../testkit/manual-clock.ts';
import { makeTmpDirs } from '../../../testkit/tmp.ts';

const tmp = makeTmpDirs();
afterEach(() => tmp.cleanup());

const start = makeExecStarter(tmp);

describe('exec (§4, X3, X4)', () => {
  it('§4: a command with no output still ends with exactly one exit chunk, streamSeq 0', async () => {
    const { run, chunks } = start('exit 3');
    expect(await run.done).toEqual({ ok: true, kind: 'exec', exitCode: 3 });
    expect(chunks).toEqual([{ seq: 0, kind: 'exit', exitCode: 3, bytes: 0 }]);
  });

  it('§4: large output arrives as ≤ 64 KiB canonical base64 chunks, contiguous from 0, exit last', async () => {
    const { run, chunks } = start(
      'head -c 1000000 /dev/urandom > f; cat f; cat f >&2; sha256sum f',
    );
    const outcome = await run.done;
    expect(outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    chunks.forEach((c, i) => expect(c.seq).toBe(i));
    expect(chunks.filter((c) => c.kind === 'exit')).toHaveLength(1);
    expect(chunks.at(-1)?.kind).toBe('exit');
    for (const c of chunks) {
      if (c.kind === 'exit') continue;
      const raw = Buffer.from(c.b64, 'base64');
      expect(raw.length).toBeLessThanOrEqual(65536);
      expect(raw.length).toBeGreaterThan(0);
      expect(raw.toString('base64')).toBe(c.b64);
    }
    const out = bytesOf(chunks, 'stdout');
    const digestLine = out.subarray(1000000).toString();
    const file = out.subarray(0, 1000000);
    expect(digestLine.startsWith(createHash('sha256').update(file).digest('hex'))).toBe(true);
    expect(bytesOf(chunks, 'stderr').equals(file)).toBe(true);
  });

  it('X4: output past the cap is dropped and flagged truncated per stream', async () => {
    const { run, chunks } = start('head -c 300000 /dev/zero; echo err >&2', { cap: 100_000 });
    expect(await run.done).toEqual({
      ok: true,
      kind: 'exec',
      exitCode: 0,
      truncated: { stdout: true, stderr: false },
    });
    expect(bytesOf(chunks, 'stdout').length).toBe(100_000);
    expect(bytesOf(chunks, 'stderr').toString()).toBe('err\n');
  });

  it('§6.8: cwd and shellEnv apply to this command only', async () => {
    const dir = tmp.make();
    const { run, chunks } = start('pwd; echo "$ONLY_HERE"', {
      cwd: dir,
      env: { PATH: process.env.PATH, ONLY_HERE: 'x1' },
    });
    await run.done;
    expect(bytesOf(chunks, 'stdout').toString()).toBe(`${dir}\nx1\n`);
    expect(process.env.ONLY_HERE).toBeUndefined();
  });

  it('shell_unavailable when the shell is missing; not_found when cwd is missing', async () => {
    expect(await start('true', { shell: '/nonexistent/sh' }).run.done).toMatchObject({
      ok: false,
      errorCode: 'shell_unavailable',
    });
    expect(await start('true', { cwd: '/nonexistent-dir-x' }).run.done).toMatchObject({
      ok: false,
      errorCode: 'not_found',
    });
  });

  it('X3: timeout kills grandchildren too and answers timeout only once the group is gone', async () => {
    const clock = makeManualTimers();
    const { run, chunks } = start('sleep 999 & echo $!; sleep 999 & echo $!; wait', {
      clock,
      timeoutMs: 5000,
    });
    const pids = (await printed(chunks, 2)).map(Number);
    const pgid = run.pgid as number;
    expect(pids.every((p) => isProcessAlive(p))).toBe(true);
    clock.advance(5000);
    expect(await run.done).toMatchObject({ ok: false, errorCode: 'timeout' });
    expect(isGroupGone(pgid)).toBe(true);
    expect(pids.some((p) => isProcessAlive(p))).toBe(false);
    expect(chunks.some((c) => c.kind === 'exit')).toBe(false);
  });

  it('X3: a group that ignores TERM is KILLed after the grace', async () => {
    const clock = makeManualTimers();
    const { run, chunks } = start('trap "" TERM; sleep 999 & echo $!; wait', {
      clock,
      timeoutMs: 100,
    });
    const [pid] = (await printed(chunks, 1)).map(Number);
    clock.advance(100);
    // TERM is ignored: still alive until the grace passes on the clock.
    while (clock.pending() === 0) await new Promise((r) => setImmediate(r));
    expect(isProcessAlive(pid as number)).toBe(true);
    clock.advance(1000);
    expect(await run.done).toMatchObject({ ok: false, errorCode: 'timeout' });
    expect(isProcessAlive(pid as number)).toBe(false);
  });

  it('R11: cancel of a running command kills the whole group and answers killed; repeats are no-ops', async () => {
    const { run, chunks } = start('sleep 999 & echo $!; wait');
    const [pid] = (await printed(chunks, 1)).map(Number);
    run.stop('cancel');
    run.stop('cancel');
    run.stop('timeout');
    expect(await run.done).toEqual({ ok: true, kind: 'cancelled', state: 'killed' });
    expect(isProcessAlive(pid as number)).toBe(false);
  });

  it('R11: a cancel after the command finished changes nothing (the ordinary outcome stands)', async () => {
    const { run } = start('echo done');
    const outcome = await run.done;
    run.stop('cancel');
    expect(outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
  });

  it('§8: nothing outlives its instruction — background work left by the shell is killed', async () => {
    const dir = tmp.make();
    writeFileSync(join(dir, 'x'), '');
    const { run, chunks } = start('sleep 999 >/dev/null 2>&1 & echo $!', { cwd: dir });
    const outcome = await run.done;
    expect(outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    const [pid] = bytesOf(chunks, 'stdout').toString().split('\n').map(Number);
    expect(isProcessAlive(pid as number)).toBe(false);
  });
});
