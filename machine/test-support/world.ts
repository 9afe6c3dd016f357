import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createMachine, type MachineHandle, type MachineOptions } from '../machine.ts';
import { captureLog, type CapturedLog } from '../log.ts';
import type { MachineMessage } from '../../protocol/index.ts';
import { makeTestPhone, type PhoneIdentity, type TestPhone } from './test-phone.ts';
import { makeTmpDir } from './tmp.ts';

// One machine in a fresh state dir with a fresh allowed root, talking to a relay; phones join
// its room. Everything made here is closed by cleanup().

export type World = {
  /** The machine running now (a new one after `restart`). */
  readonly machine: MachineHandle;
  log: CapturedLog;
  root: string;
  stateDir: string;
  dir: string;
  /** Every message the machine sent, with the push it carried. */
  sent: Array<{ message: MachineMessage; push: unknown; frame: string }>;
  /** A phone in the machine's room now, or in the room of `pairingCode`; E6: with an identity. */
  phone(o?: { identity?: PhoneIdentity; pairingCode?: string }): Promise<TestPhone>;
  /** Stops the machine and starts a new one on the same state dir and root (a restart). */
  restart(overrides?: Partial<MachineOptions>): Promise<MachineHandle>;
  cleanup(): Promise<void>;
};

export async function makeWorld(
  relayUrl: string,
  overrides: Partial<MachineOptions> = {},
): Promise<World> {
  const tmp = makeTmpDir();
  const root = path.join(tmp.dir, 'root');
  mkdirSync(root);
  const stateDir = path.join(tmp.dir, 'state');
  const log = captureLog();
  const sent: World['sent'] = [];
  const options: MachineOptions = {
    relay: relayUrl,
    name: 'test-machine',
    roots: [root],
    stateDir,
    appUrl: 'http://127.0.0.1:4173',
    log,
    random: () => 0.5,
    onSend: (message, push, frame) => sent.push({ message, push, frame }),
    ...overrides,
  };
  let machine = await createMachine(options);
  const phones: TestPhone[] = [];
  return {
    get machine() {
      return machine;
    },
    log,
    root,
    stateDir,
    dir: tmp.dir,
    sent,
    async phone(o = {}) {
      const p = await makeTestPhone({
        relayUrl,
        pairingCode: o.pairingCode ?? machine.pairing.code,
        ...(o.identity ? { identity: o.identity } : {}),
      });
      phones.push(p);
      return p;
    },
    async restart(more = {}) {
      await machine.close();
      machine = await createMachine({ ...options, ...more });
      await machine.connected();
      return machine;
    },
    async cleanup() {
      await Promise.all(phones.map((p) => p.close()));
      await machine.close();
      tmp.cleanup();
    },
  };
}
