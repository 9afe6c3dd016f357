import { afterAll, afterEach, beforeAll } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { MachineMessage } from '../../protocol/index.ts';
import type { MachineOptions } from '../machine.ts';
import { startRelayProcess, type RelayProcess } from './relay-process.ts';
import type { TestPhone } from './test-phone.ts';
import { makeTmpDir } from '../../testkit/tmp.ts';
import { makeWorld, type World } from './world.ts';

/** One real relay child process per test file; one world per test, cleaned up after it. */
export function relaySuite() {
  let relay: RelayProcess | undefined;
  let relayDir: { dir: string; cleanup(): void } | undefined;
  const worlds: World[] = [];
  beforeAll(async () => {
    relayDir = makeTmpDir('relay-');
    relay = await startRelayProcess({ dataDir: relayDir.dir });
  });
  afterAll(async () => {
    await relay?.stop();
    relayDir?.cleanup();
  });
  afterEach(async () => {
    await Promise.all(worlds.splice(0).map((w) => w.cleanup()));
  });
  return {
    relay: () => relay!,
    async world(overrides: Partial<MachineOptions> = {}): Promise<World> {
      const w = await makeWorld(relay!.url, overrides);
      worlds.push(w);
      await w.machine.connected();
      return w;
    },
  };
}

export const is =
  <T extends MachineMessage['type']>(type: T) =>
  (m: MachineMessage): m is Extract<MachineMessage, { type: T }> =>
    m.type === type;

export const rid = () => randomUUID();

/** Dispatches and returns the dispatch.result for this requestId. */
export async function dispatch(
  phone: TestPhone,
  fields: {
    prompt: string;
    cwd?: string;
    worktree?: boolean;
    access?: 'standard' | 'full';
    requestId?: string;
    ts?: number;
  },
) {
  const requestId = fields.requestId ?? rid();
  const from = phone.messages.length;
  phone.send({
    type: 'dispatch.request',
    requestId,
    prompt: fields.prompt,
    worktree: fields.worktree ?? false,
    ...(fields.cwd !== undefined ? { cwd: fields.cwd } : {}),
    ...(fields.access !== undefined ? { access: fields.access } : {}),
    ...(fields.ts !== undefined ? { ts: fields.ts } : {}),
  });
  return phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'dispatch.result' }> =>
      m.type === 'dispatch.result' && m.requestId === requestId,
    8000,
    from,
  );
}

export const finalOf = (phone: TestPhone, sessionId: string) =>
  phone.waitFor(
    (m): m is Extract<MachineMessage, { type: 'turn.final' }> =>
      m.type === 'turn.final' && m.sessionId === sessionId,
    8000,
  );
