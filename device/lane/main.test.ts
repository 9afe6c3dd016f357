import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEntry, type TestProcess } from '../../testkit/process.ts';
import { makeTmpDir, type TmpDir } from '../../testkit/tmp.ts';
import { ALICE } from '../test-support/lane-fixture.ts';
import { connectTestDevice, enrollTestDevice } from '../test-support/test-device.ts';

const children: TestProcess[] = [];
let dir: TmpDir | undefined;

afterEach(async () => {
  for (const c of children.splice(0)) await c.kill();
  dir?.cleanup();
  dir = undefined;
});

/** Starts the lane (its bundle) as its own process group and resolves with the line it prints. */
const startLane = async (dataDir: string, usersFile: string) => {
  const child = startEntry(
    'lane',
    'device/lane/main.ts',
    ['--data-dir', dataDir, '--users-file', usersFile],
    { closeStdin: true },
  );
  children.push(child);
  const [, line] = await child.waitForOutput(/^(\{.*\})\n/);
  return { child, ...(JSON.parse(line!) as { url: string; wsUrl: string }) };
};
const exited = async (c: TestProcess) => {
  const e = await c.exited;
  return e.code ?? e.signal;
};

describe('the lane as a process: the registry survives kill -9', () => {
  it('a device enrolled before the host was killed can still hello, and gen keeps counting', async () => {
    dir = makeTmpDir('device-lane-proc-');
    const usersFile = join(dir.dir, 'users.json');
    writeFileSync(usersFile, JSON.stringify({ [ALICE]: 'alice' }), { mode: 0o600 });
    const dataDir = join(dir.dir, 'data');

    const a = await startLane(dataDir, usersFile);
    const id = await enrollTestDevice(a.url, ALICE);
    const d1 = await connectTestDevice(a.wsUrl, id);
    expect(await d1.hello()).toMatchObject({ t: 'helloAck', gen: '1' });
    a.child.signal('SIGKILL');
    await exited(a.child);
    await d1.closed;

    const b = await startLane(dataDir, usersFile);
    const d2 = await connectTestDevice(b.wsUrl, id);
    expect(await d2.hello()).toMatchObject({ t: 'helloAck', gen: '2' });
    // SIGTERM drains: the device is told, the process exits 0
    b.child.signal('SIGTERM');
    expect(await d2.next('bye')).toMatchObject({ reason: 'draining' });
    expect(await exited(b.child)).toBe(0);
  });
});
