// H7b with real processes: a command's descendant that left its process group (`setsid`) and
// keeps the command's output open. Each case runs with the /proc walk alone and, where this
// machine lets the executor create cgroups (detectCgroupSupport), with a cgroup per command.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from '../outcome.ts';
import { once } from 'node:events';
import { detectCgroupSupport } from '../proc/cgroup.ts';
import { spawnGroup } from '../proc/group.ts';
import { isProcessAlive } from '../proc/proc-stat.ts';
import { makeExecStarter, printed } from '../test-support/exec-run.ts';
import { makeManualTimers, type ManualTimers } from '../../../testkit/manual-clock.ts';
import { makeTmpDirs } from '../../../testkit/tmp.ts';

const tmp = makeTmpDirs();
const strays: number[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  tmp.cleanup();
});

const start = makeExecStarter(tmp);
const support = detectCgroupSupport();
const MODES = [
  { name: '/proc walk', cgroupBase: null },
  ...(support.ok ? [{ name: 'cgroup', cgroupBase: support.base }] : []),
];

/** Runs every timer the command's stop path schedules (kill grace, drain bound) until done. */
const settle = async (done: Promise<Outcome>, clock: ManualTimers): Promise<Outcome> => {
  let outcome: Outcome | undefined;
  void done.then((o) => (outcome = o));
  while (outcome === undefined) {
    const pending = clock.delays();
    if (pending.length > 0) clock.advance(Math.max(...pending));
    await new Promise((r) => setImmediate(r));
  }
  return outcome;
};

/** Waits until pid has exec'd `/bin/sleep` (its environment in /proc is then final). */
const execd = async (pid: number) => {
  const cmd = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      return '';
    }
  };
  while (!cmd().startsWith('/bin/sleep\0')) await new Promise((r) => setImmediate(r));
};

describe.each(MODES)('H7b: descendants that left the group ($name)', ({ cgroupBase }) => {
  it('H7b: a `setsid` child holding the output is killed at timeoutMs and the answer is timeout', async () => {
    const clock = makeManualTimers();
    const { run, chunks } = start('setsid sleep 300 & echo $!; wait', {
      clock,
      timeoutMs: 1500,
      cgroupBase,
    });
    const [pid] = (await printed(chunks, 1)).map(Number) as [number];
    strays.push(pid);
    clock.advance(1500);
    expect(await settle(run.done, clock)).toMatchObject({ ok: false, errorCode: 'timeout' });
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('H7b: an orphaned `setsid` grandchild (its parent exited) holding the output is found and killed at timeout', async () => {
    const clock = makeManualTimers();
    const { run, chunks } = start("sh -c 'setsid sleep 300 & echo $!'; echo next; sleep 300", {
      clock,
      timeoutMs: 1500,
      cgroupBase,
    });
    const [pid] = (await printed(chunks, 2)).map(Number) as [number];
    strays.push(pid);
    expect(readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1]?.split(' ')[1]).toBe('1');
    clock.advance(1500);
    expect(await settle(run.done, clock)).toMatchObject({ ok: false, errorCode: 'timeout' });
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('H7b: cancel kills a `setsid` orphan holding the output and answers killed', async () => {
    const clock = makeManualTimers();
    const { run, chunks } = start("sh -c 'setsid sleep 300 & echo $!'; echo next; sleep 300", {
      clock,
      cgroupBase,
    });
    const [pid] = (await printed(chunks, 2)).map(Number) as [number];
    strays.push(pid);
    run.stop('cancel');
    expect(await settle(run.done, clock)).toEqual({ ok: true, kind: 'cancelled', state: 'killed' });
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('H7b/§8: when the shell exits, a `setsid` orphan holding the output is killed and the exit code answers, output whole', async () => {
    const { run, chunks } = start("sh -c 'setsid sleep 300 & echo $!'; echo after", {
      cgroupBase,
    });
    const outcome = await run.done;
    const [pid, after] = await printed(chunks, 2);
    strays.push(Number(pid));
    expect(outcome).toEqual({ ok: true, kind: 'exec', exitCode: 0 });
    expect(after).toBe('after');
    expect(isProcessAlive(Number(pid))).toBe(false);
  });

  it('H7b: an orphan that also scrubbed its environment still gets an answer on time, as the spec demands', async () => {
    const clock = makeManualTimers();
    const { run, chunks } = start(
      "sh -c 'setsid env -i /bin/sleep 300 & echo $!'; echo next; sleep 300",
      { clock, timeoutMs: 1500, cgroupBase },
    );
    const [pid] = (await printed(chunks, 2)).map(Number) as [number];
    strays.push(pid);
    await execd(pid);
    clock.advance(1500);
    const outcome = await settle(run.done, clock);
    if (cgroupBase) {
      // The cgroup holds it whatever it does to its group, parent or environment.
      expect(outcome).toMatchObject({ ok: false, errorCode: 'timeout' });
      expect(isProcessAlive(pid)).toBe(false);
    } else {
      // Nothing in /proc ties it to the command any more: X3 forbids `timeout`, and the answer
      // comes after the drain bound instead of when the process ends.
      expect(outcome).toMatchObject({
        ok: false,
        errorCode: 'outcome_unknown',
        message: expect.stringContaining('stdout and stderr stayed open'),
      });
      expect(isProcessAlive(pid)).toBe(true);
    }
  });
});

describe.each(MODES.filter((m) => m.cgroupBase !== null))(
  'H7b: a cgroup per command ($name)',
  ({ cgroupBase }) => {
    it('H7b: the command runs inside a cgroup of its own, removed once the command is gone', async () => {
      const { run, chunks } = start('cat /proc/self/cgroup', { cgroupBase });
      expect(await run.done).toMatchObject({ ok: true, exitCode: 0 });
      const line = (await printed(chunks, 1)).find((l) => l.startsWith('0::')) ?? '';
      const name = /dsh-exec-[0-9a-f]{32}$/.exec(line)?.[0] ?? '';
      expect(name).not.toBe('');
      expect(existsSync(join(cgroupBase as string, name))).toBe(false);
    });
  },
);

describe('H7b: the cgroup wrapper', () => {
  it('H7b: a failed move into the cgroup still runs the command once, with nothing on its stderr', async () => {
    const tags = { mark: 'c'.repeat(32), cgroup: join(tmp.make(), 'not-a-cgroup') };
    const g = await spawnGroup('/bin/sh', 'echo ran; echo "$DSH_EXEC_MARK"', {
      cwd: tmp.make(),
      env: { PATH: process.env.PATH, DSH_EXEC_MARK: 'from shellEnv' },
      tags,
    });
    if ('error' in g) throw g.error;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    g.stdout.on('data', (b: Buffer) => out.push(b));
    g.stderr.on('data', (b: Buffer) => err.push(b));
    const closed = Promise.all([once(g.stdout, 'close'), once(g.stderr, 'close')]);
    expect(await g.exited).toEqual({ code: 0, signal: null });
    await closed;
    expect(Buffer.concat(out).toString()).toBe(`ran\n${tags.mark}\n`);
    expect(Buffer.concat(err).toString()).toBe('');
  });
});
