import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRelayProcess, type RelayProcess } from '../test-support/relay-process.ts';
import { is } from '../test-support/relay-suite.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { until } from '../../testkit/until.ts';
import { makeWorld, type World } from '../test-support/world.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A port nothing listens on: bound, noted, released. */
async function deadPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe('Reconnect (spec "Heartbeat": jittered backoff 0.5 s → 30 s)', () => {
  it('after the relay restarts the machine reconnects by itself; an approval raised meanwhile reaches the next phone (D8)', async () => {
    const dir = makeTmpDir('relay-');
    cleanups.push(dir.cleanup);
    let relay: RelayProcess = await startRelayProcess({ dataDir: dir.dir });
    cleanups.push(() => relay.stop());
    const world: World = await makeWorld(relay.url);
    cleanups.push(() => world.cleanup());
    await world.machine.connected();
    const phone = await world.phone();
    await phone.waitFor(is('machine.status'));

    await relay.stop();
    await until(() => !world.machine.status().connected, 'the machine to notice');
    const { approvalId } = world.machine.raiseApproval({ title: 'While away', detail: 'd' });
    relay = await startRelayProcess({ dataDir: dir.dir, port: relay.port });
    await world.machine.connected(15_000);
    expect(world.log.lines.some((l) => l.code === 'relay-disconnected')).toBe(true);
    const phone2 = await world.phone();
    await phone2.waitFor(is('machine.status'));
    await phone2.waitFor((m) => m.type === 'approval.request' && m.approvalId === approvalId);
  });

  it('after 10 consecutive failures a visible error state, then retries every 60 s', async () => {
    const port = await deadPort();
    const tmp = makeTmpDir();
    cleanups.push(tmp.cleanup);
    const { captureLog } = await import('../log.ts');
    const { createMachine } = await import('../machine.ts');
    const log = captureLog();
    const machine = await createMachine({
      relay: `ws://127.0.0.1:${port}`,
      name: 'm',
      roots: [],
      stateDir: path.join(tmp.dir, 's'),
      appUrl: 'http://127.0.0.1:4173',
      log,
      // The real profile's shape with short delays so ten failures take milliseconds.
      backoff: { baseMs: 1, maxMs: 4, failuresBeforeErrorState: 10, errorStateRetryMs: 60_000 },
      random: () => 0.5,
    });
    cleanups.push(() => machine.close());
    await until(() => machine.status().errorState, 'the error state');
    expect(machine.status()).toMatchObject({
      connected: false,
      errorState: true,
      consecutiveFailures: 10,
    });
    const errors = log.lines.filter((l) => l.code === 'relay-unreachable');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 'error' });
    expect(errors[0]!.message).toContain('retrying every 60 s');
  });
});
