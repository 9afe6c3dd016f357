import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MachineMessage } from '../protocol/index.ts';
import { startRelayProcess, type RelayProcess } from './test-support/relay-process.ts';
import { makeTmpDir } from './test-support/tmp.ts';
import { makeWorld, type World } from './test-support/world.ts';

let relay: RelayProcess;
let relayDir: { dir: string; cleanup(): void };
let world: World | null = null;

beforeAll(async () => {
  relayDir = makeTmpDir('relay-');
  relay = await startRelayProcess({ dataDir: relayDir.dir });
});
afterAll(async () => {
  await relay?.stop();
  relayDir?.cleanup();
});
afterEach(async () => {
  await world?.cleanup();
  world = null;
});

const is =
  <T extends MachineMessage['type']>(type: T) =>
  (m: MachineMessage): m is Extract<MachineMessage, { type: T }> =>
    m.type === type;

describe('machine.status / session.snapshot', () => {
  it('machine.status on connect and whenever a phone joins, with allowedRoots and capabilities', async () => {
    world = await makeWorld(relay.url);
    await world.machine.connected();
    expect(world.sent.map((s) => s.message.type)).toContain('machine.status');
    const phone = await world.phone();
    const status = await phone.waitFor(is('machine.status'));
    expect(status).toMatchObject({
      machine: 'test-machine',
      allowedRoots: [world.root],
      capabilities: { fullAccessDispatch: false, questionForwarding: true },
    });
    await phone.waitFor(is('session.snapshot'));
  });
});
