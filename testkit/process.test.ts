import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from './ports.ts';
import { liveInGroup } from './process-group.ts';
import { startProcess, whenReady, type TestProcess } from './process.ts';

// The test kit's process helper, against real shells: what every suite's child processes rely on.
const started: TestProcess[] = [];
afterEach(async () => {
  for (const p of started.splice(0)) await p.kill();
});
const sh = (script: string) => {
  const p = startProcess('sh', 'sh', ['-c', script]);
  started.push(p);
  return p;
};

describe('T2: testkit process helper', () => {
  it('T2: stop() signals the whole group, SIGKILLs what ignores SIGTERM after the grace, and returns once nothing of the group runs', async () => {
    // The leader and a member both ignore SIGTERM.
    const p = sh(
      `trap '' TERM; sh -c "trap '' TERM; echo member; exec sleep 30" & echo ready; wait`,
    );
    await whenReady(p, /^ready$/);
    await p.waitForLine(/^member$/);
    expect(liveInGroup(p.pid).length).toBeGreaterThanOrEqual(2);
    const exit = await p.stop({ graceMs: 300, killLeftovers: true });
    expect(exit.signal).toBe('SIGKILL');
    expect(liveInGroup(p.pid)).toEqual([]);
  });

  it('T2: waiting for a line rejects with the name and the exit when the process ends first', async () => {
    const p = sh('echo starting; exit 3');
    await expect(p.waitForLine(/never/)).rejects.toThrow(/^sh exited \(code 3\) before line/);
  });

  it('T2: complete lines of both streams are kept in order of arrival, and stdout whole', async () => {
    const p = sh('echo one; echo two >&2; printf three');
    const exit = await p.closed;
    expect(exit.code).toBe(0);
    expect(p.lines).toEqual(['one', 'two']); // an unterminated last line is not a line yet
    expect(p.stdout()).toBe('one\nthree');
  });

  it('T2: freePort gives a loopback port nobody listens on', async () => {
    const port = await freePort();
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise((r) => server.close(r));
  });
});
