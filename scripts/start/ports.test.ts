import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isFree, takenPorts } from './ports.ts';

const open: net.Server[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => new Promise((r) => s.close(r))));
});
const hold = (host: string, port = 0) =>
  new Promise<number>((resolve) => {
    const s = net.createServer();
    open.push(s);
    s.listen(port, host, () => resolve((s.address() as net.AddressInfo).port));
  });

describe('P4: a taken port is one line naming the variable that moves it', () => {
  it('free ports say nothing; a taken one names what, the variable and a free port to use', async () => {
    const taken = await hold('127.0.0.1');
    const free = await hold('127.0.0.1');
    await new Promise((r) => open.pop()!.close(r)); // `free` is released again
    const lines = await takenPorts([
      { what: 'the app', host: '127.0.0.1', port: taken, variable: 'DSH_APP_PORT' },
      { what: 'the relay', host: '127.0.0.1', port: free, variable: 'DSH_RELAY_PORT' },
    ]);
    expect(lines).toHaveLength(1);
    const m = new RegExp(
      `^port ${taken} \\(the app\\) is already in use: stop what holds it, or move it with DSH_APP_PORT=(\\d+) npm start$`,
    ).exec(lines[0]!);
    expect(m).not.toBeNull();
    const suggested = Number(m![1]);
    expect(suggested).toBeGreaterThan(taken);
    expect(suggested).not.toBe(free); // another part will take that one
    expect(await isFree('127.0.0.1', suggested)).toBe(true);
  });

  it('a port held on every interface is taken for a loopback listener, and the reverse', async () => {
    const any = await hold('0.0.0.0');
    expect(await isFree('127.0.0.1', any)).toBe(false);
    const loop = await hold('127.0.0.1');
    expect(await isFree('0.0.0.0', loop)).toBe(false);
  });
});
